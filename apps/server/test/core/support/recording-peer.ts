import type { SessionEvent } from '@interthought/protocol';
import type { Frame } from '../../../src/core/fanout/frame.js';
import type { Peer } from '../../../src/core/fanout/peer.js';

/** A frame as the peer received it, parsed, with its type. */
export type ReceivedFrame = { type: string; [field: string]: unknown };

/** A peer that keeps the text of every frame it is sent, as a WebSocket client would receive them. */
export class RecordingPeer implements Peer {
  readonly frames: string[] = [];

  constructor(readonly id: string = 'peer') {}

  send(frame: Frame): void {
    this.frames.push(frame.text);
  }

  sendLive(frame: Frame): void {
    this.frames.push(frame.text);
  }

  /** Every frame, parsed. */
  get messages(): ReceivedFrame[] {
    return this.frames.map((frame) => JSON.parse(frame) as ReceivedFrame);
  }

  /** The session events received (frames with a `seq`), in order. */
  events(sessionId?: string): SessionEvent[] {
    return this.messages.filter(
      (message) => typeof message.seq === 'number' && message.type !== 'session.snapshot' && (sessionId === undefined || message.sessionId === sessionId),
    ) as unknown as SessionEvent[];
  }

  /** The frames of one type. */
  ofType(type: string): ReceivedFrame[] {
    return this.messages.filter((message) => message.type === type);
  }

  clear(): void {
    this.frames.length = 0;
  }
}
