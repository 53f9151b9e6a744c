import type { SessionSnapshotData } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { refusal } from '../support/refusal.js';
import type { ServiceTargetFactory } from './service-target.js';
import { completedSession, ends, expectContiguous, foldInto, heldSession, lastSeqOf, nextFrame, seqsOf, snapshotOf, statusReached } from './service-support.js';

/** `subscribe` (a snapshot, or a replay after a cursor), `unsubscribe`, `detach` and the subscription counts. */
export function describeSubscriptions(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: subscribe`, () => {
    it('answers with a session.snapshot carrying the request id, then every later event exactly once', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator, open } = await heldSession(target);
      const watcher = target.peer('watcher');
      await b.subscribe(sessionId, { peer: watcher, requestId: 'r-sub' });
      const [first] = watcher.messages;
      expect(first).toMatchObject({ type: 'session.snapshot', requestId: 'r-sub', session: { sessionId, status: 'running' } });
      const from = first as unknown as SessionSnapshotData & { type: string; requestId: string };
      open();
      await statusReached(watcher, sessionId, 'completed');
      await statusReached(creator, sessionId, 'completed');

      expectContiguous(seqsOf(watcher, sessionId), from.seq);
      expect(watcher.events(sessionId)).toEqual(creator.events(sessionId).filter((event) => event.seq > from.seq));
      const { type: _type, requestId: _requestId, ...snapshot } = from;
      expect(foldInto(watcher.events(sessionId), snapshot)).toEqual(await snapshotOf(b, sessionId));
      expect(b.isSubscribed(watcher, sessionId)).toBe(true);
    });

    it('replays after a cursor: session.subscribed, then every event after it in order, nothing missed or doubled', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator, open } = await heldSession(target);
      const watcher = target.peer('watcher');
      await b.subscribe(sessionId, { peer: watcher, requestId: 'r-sub' }, 2);
      expect(watcher.messages[0]).toMatchObject({ type: 'session.subscribed', requestId: 'r-sub', sessionId, afterSeq: 2 });
      open();
      await statusReached(watcher, sessionId, 'completed');
      await statusReached(creator, sessionId, 'completed');
      expect(watcher.messages.slice(1)).toEqual(creator.events(sessionId).filter((event) => event.seq > 2));
    });

    it('replays a finished session from seq 0 to its end, and from its last seq to nothing', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await completedSession(target);
      const last = lastSeqOf(creator, sessionId);
      const fromStart = target.peer('from-start');
      await b.subscribe(sessionId, { peer: fromStart }, 0);
      await nextFrame(fromStart, 'the last event', (frame) => frame.seq === last);
      expect(fromStart.messages[0]).toMatchObject({ type: 'session.subscribed', sessionId, afterSeq: 0, lastSeq: last });
      expect(fromStart.messages.slice(1)).toEqual(creator.events(sessionId));

      const fromEnd = target.peer('from-end');
      await b.subscribe(sessionId, { peer: fromEnd, requestId: 'r-end' }, last);
      expect(fromEnd.messages).toEqual([{ type: 'session.subscribed', requestId: 'r-end', sessionId, afterSeq: last, lastSeq: last }]);
    });

    it('refuses a bad cursor with BAD_CURSOR and an unknown session with SESSION_NOT_FOUND, subscribing nothing', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await completedSession(target);
      const last = lastSeqOf(creator, sessionId);
      const peer = target.peer('peer');
      for (const cursor of [-1, 1.5, last + 1]) await refusal(() => b.subscribe(sessionId, { peer, requestId: 'r' }, cursor), 'BAD_CURSOR');
      await refusal(() => b.subscribe('no-such-session', { peer, requestId: 'r' }), 'SESSION_NOT_FOUND');
      await refusal(() => b.subscribe('no-such-session', { peer, requestId: 'r' }, 0), 'SESSION_NOT_FOUND');
      expect(peer.frames).toEqual([]);
      expect(b.isSubscribed(peer, sessionId)).toBe(false);
      expect(b.subscriptionCount(peer)).toBe(0);
    });
  });

  describe(`${name}: unsubscribe, detach and the counts`, () => {
    it('unsubscribe detaches the peer while the run goes on, and a second one is harmless', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, open } = await heldSession(target);
      const leaving = target.peer('leaving');
      const staying = target.peer('staying');
      await b.subscribe(sessionId, { peer: leaving }, 0);
      await b.subscribe(sessionId, { peer: staying }, 0);
      expect(b.isSubscribed(leaving, sessionId)).toBe(true);
      expect(b.subscriptionCount(leaving)).toBe(1);

      await b.unsubscribe(sessionId, leaving);
      expect(b.isSubscribed(leaving, sessionId)).toBe(false);
      expect(b.subscriptionCount(leaving)).toBe(0);
      const got = leaving.frames.length;
      open();
      await statusReached(staying, sessionId, 'completed');
      expect(leaving.frames).toHaveLength(got);
      expect(b.isSubscribed(staying, sessionId)).toBe(true);
      await b.unsubscribe(sessionId, leaving);
      await refusal(() => b.unsubscribe('no-such-session', leaving), 'SESSION_NOT_FOUND');
    });

    it('counts the sessions a peer follows, and detach ends all of them and its list', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const first = await heldSession(target, 'First task');
      const second = await heldSession(target, 'Second task');
      const leaving = target.peer('leaving');
      const staying = target.peer('staying');
      for (const peer of [leaving, staying]) {
        await b.subscribe(first.sessionId, { peer });
        expect(b.subscriptionCount(peer)).toBe(1);
        await b.subscribe(second.sessionId, { peer }, 0);
        expect(b.subscriptionCount(peer)).toBe(2);
        await b.watchList({ peer }, 10);
      }
      expect(b.isSubscribed(leaving, first.sessionId) && b.isSubscribed(leaving, second.sessionId)).toBe(true);

      b.detach(leaving);
      expect(b.subscriptionCount(leaving)).toBe(0);
      expect(b.isSubscribed(leaving, first.sessionId) || b.isSubscribed(leaving, second.sessionId)).toBe(false);
      const got = leaving.frames.length;
      first.open();
      second.open();
      const third = await a.create({ task: 'Add two and three' });
      await statusReached(staying, first.sessionId, 'completed');
      await statusReached(staying, second.sessionId, 'completed');
      await nextFrame(staying, 'the list change of the third session', (frame) => frame.type === 'sessions.changed' && (frame.session as { sessionId: string }).sessionId === third.sessionId);
      expect(leaving.frames).toHaveLength(got);
      expect(b.subscriptionCount(staying)).toBe(2);
    });
  });
}
