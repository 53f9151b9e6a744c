import { SESSION_EVENT_TYPES, type ServerMessage, type SessionEvent } from '@interthought/protocol';
import { TestClient } from '../../support/ws-client.js';

const eventTypes: ReadonlySet<string> = new Set(SESSION_EVENT_TYPES);

/**
 * A real `ws` client (the shared `TestClient`) that also keeps the text of every frame exactly as
 * it arrived, so a test can compare what a client saw with the durable log byte for byte.
 */
export class RawClient {
  readonly texts: string[] = [];

  private constructor(readonly client: TestClient) {
    // Attached once the socket is open, before any frame (the hello comes after the open event).
    client.socket.on('message', (data) => this.texts.push(data.toString()));
  }

  static async connect(wsUrl: string): Promise<RawClient> {
    const raw = new RawClient(await TestClient.connect(wsUrl));
    await raw.client.waitForType('hello');
    return raw;
  }

  /** The text of each event of the session received so far, in arrival order. */
  eventTexts(sessionId: string): string[] {
    return this.texts.filter((text) => {
      const frame = JSON.parse(text) as { type?: unknown; sessionId?: unknown };
      return typeof frame.type === 'string' && eventTypes.has(frame.type) && frame.sessionId === sessionId;
    });
  }

  /** The session's events received so far, parsed. */
  events(sessionId: string): SessionEvent[] {
    return this.client.events(sessionId);
  }

  /** Send `session.subscribe` and resolve with its direct answer. */
  async subscribe(sessionId: string, afterSeq?: number): Promise<ServerMessage> {
    const id = this.client.send(afterSeq === undefined ? { type: 'session.subscribe', sessionId } : { type: 'session.subscribe', sessionId, afterSeq });
    return this.client.answerTo(id);
  }

  /** Send any request and resolve with its direct answer. */
  async request(frame: Record<string, unknown>): Promise<ServerMessage> {
    return this.client.answerTo(this.client.send(frame));
  }

  /** Resolve once the session's event `seq` has arrived. */
  async untilSeq(sessionId: string, seq: number, timeoutMs = 15_000): Promise<void> {
    await this.client.waitFor((frame) => 'sessionId' in frame && frame.sessionId === sessionId && 'seq' in frame && frame.type !== 'session.snapshot' && frame.seq === seq, `event ${seq} of ${sessionId}`, timeoutMs);
  }

  close(): Promise<unknown> {
    return this.client.close();
  }
}
