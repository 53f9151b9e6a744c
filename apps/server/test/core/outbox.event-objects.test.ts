import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../src/core/persistence/outbox.js';
import type { Frame } from '../../src/core/fanout/frame.js';
import type { Peer } from '../../src/core/fanout/peer.js';
import { RecordingStore } from '../support/recording-store.js';

/** A peer that keeps what `send` got: the frame's text and the event it carries as live, if any. */
class EventPeer implements Peer {
  readonly received: Array<{ frame: string; event: SessionEvent | undefined }> = [];
  constructor(readonly id: string) {}
  send(frame: Frame): void {
    this.received.push({ frame: frame.text, event: frame.event });
  }
  sendLive(frame: Frame): void {
    this.received.push({ frame: frame.text, event: undefined });
  }
}

function setup() {
  const store = new RecordingStore();
  void store.createSession({ info: { sessionId: 's', task: 't', agent: 'a', status: 'running', revision: 0, createdAt: 'x' }, options: {}, lastSeq: 0 });
  const outbox = new Outbox({ store, reportError: () => undefined });
  return { outbox };
}

const at = '2025-01-01T00:00:00.000Z';

describe('Outbox: the event object handed to peers', () => {
  it('hands each peer the event alongside its serialisation, so a transport can coalesce without parsing', async () => {
    const { outbox } = setup();
    const peer = new EventPeer('p');
    const event: SessionEvent = { type: 'step.delta', sessionId: 's', seq: 1, at, stepId: 'st_1', text: 'Hi' };
    outbox.enqueue({ target: { subscribers: new Map([[peer, 0]]) }, event });
    await outbox.flush();
    expect(peer.received).toEqual([{ frame: JSON.stringify(event), event }]);
  });

  it('hands no event with the requester\'s copy that carries a requestId (it is not the event\'s serialisation)', async () => {
    const { outbox } = setup();
    const requester = new EventPeer('requester');
    const other = new EventPeer('other');
    const event: SessionEvent = { type: 'session.status', sessionId: 's', seq: 1, at, status: 'paused' };
    outbox.enqueue({ target: { subscribers: new Map([[requester, 0], [other, 0]]) }, event, reply: { peer: requester, requestId: 'r1' } });
    await outbox.flush();
    expect(requester.received).toEqual([{ frame: JSON.stringify({ ...event, requestId: 'r1' }), event: undefined }]);
    expect(other.received).toEqual([{ frame: JSON.stringify(event), event }]);
  });
});
