import type { SessionInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { refusal } from '../support/refusal.js';
import type { ReceivedFrame } from '../support/recording-peer.js';
import type { ServiceTargetFactory } from './service-target.js';
import { completedSession, ends, heldSession, nextFrame, statusReached } from './service-support.js';

const summaryOf = (frame: ReceivedFrame): SessionInfo => frame.session as SessionInfo;

/** The changes of one session a list watcher got, in order: each changed summary's status, and `removed`. */
function changesOf(frames: readonly ReceivedFrame[], sessionId: string): string[] {
  return frames.flatMap((frame) => {
    if (frame.type === 'sessions.changed' && summaryOf(frame).sessionId === sessionId) return [`${summaryOf(frame).status}@${summaryOf(frame).revision}`];
    if (frame.type === 'sessions.removed' && frame.sessionId === sessionId) return ['removed'];
    return [];
  });
}

/** `watchList` / `unwatchList` and `list`. */
export function describeSessionList(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: watchList`, () => {
    it('answers sessions.watching with the request id and the newest summaries, newest first', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const ids: string[] = [];
      for (const task of ['First', 'Second', 'Third']) ids.push((await completedSession(target, task)).sessionId);
      const watcher = target.peer('watcher');
      const sessions = await b.watchList({ peer: watcher, requestId: 'r-watch' }, 2);
      expect(sessions.map((session) => session.sessionId)).toEqual([ids[2], ids[1]]);
      expect(sessions.every((session) => session.status === 'completed')).toBe(true);
      const [answer, ...later] = watcher.messages;
      expect(answer).toEqual({ type: 'sessions.watching', requestId: 'r-watch', sessions });
      // On a cluster, changes stored before the watch may still be crossing the list relay and arrive after the
      // answer. They replay what was stored, in order, so each session's last word is still `completed`.
      for (const frame of later) expect(frame.type).toBe('sessions.changed');
      for (const id of ids) expect(changesOf(later, id).at(-1) ?? 'completed@0').toBe('completed@0');
    });

    it('tells the watcher of every change stored after, made on either service: created, status and revision changed, removed', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const watchers = [target.peer('watcher-a'), target.peer('watcher-b')];
      await a.watchList({ peer: watchers[0]! }, 10);
      await b.watchList({ peer: watchers[1]! }, 10);
      const { sessionId, creator, open } = await heldSession(target);
      open();
      await statusReached(creator, sessionId, 'completed');
      const [thought] = (await b.snapshot(sessionId))!.chain;
      await b.correct({ sessionId, stepId: thought!, content: 'Think again.' });
      await statusReached(creator, sessionId, 'completed', 2);
      const other = await b.create({ task: 'Add two and three' });
      await b.delete(sessionId);

      for (const watcher of watchers) {
        await nextFrame(watcher, 'sessions.removed', (frame) => frame.type === 'sessions.removed' && frame.sessionId === sessionId);
        await nextFrame(watcher, 'the other session done', (frame) => frame.type === 'sessions.changed' && summaryOf(frame).sessionId === other.sessionId && summaryOf(frame).status === 'completed');
        const changes = changesOf(watcher.messages, sessionId);
        // Every summary stored reaches the watcher, in order: some may repeat (a summary stored twice), none is skipped.
        const distinct = changes.filter((change, index) => change !== changes[index - 1]);
        expect(distinct).toEqual(['running@0', 'completed@0', 'running@1', 'completed@1', 'removed']);
        expect(changesOf(watcher.messages, other.sessionId).at(0)).toBe('running@0');
      }
    });

    it('unwatchList stops the changes (twice is harmless), and watching again starts with a fresh page', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const leaving = target.peer('leaving');
      const staying = target.peer('staying');
      await b.watchList({ peer: leaving }, 10);
      await b.watchList({ peer: staying }, 10);
      b.unwatchList(leaving);
      b.unwatchList(leaving);
      const { sessionId } = await completedSession(target);
      await nextFrame(staying, 'the completed summary', (frame) => frame.type === 'sessions.changed' && summaryOf(frame).status === 'completed');
      expect(leaving.messages.map((frame) => frame.type)).toEqual(['sessions.watching']);
      await b.watchList({ peer: leaving, requestId: 'again' }, 10);
      expect(leaving.messages.at(-1)).toMatchObject({ type: 'sessions.watching', requestId: 'again', sessions: [expect.objectContaining({ sessionId, status: 'completed' })] });
    });
  });

  describe(`${name}: list`, () => {
    it('pages newest first with a cursor, each session once, the same from either service', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const ids: string[] = [];
      for (const task of ['One', 'Two', 'Three', 'Four', 'Five']) ids.push((await a.create({ task })).sessionId);
      for (const service of [a, b]) {
        const seen: string[] = [];
        let before: string | undefined;
        for (let page = 0; page < 5; page++) {
          const result = await service.list(before === undefined ? { limit: 2 } : { limit: 2, before });
          expect(result.sessions.length).toBeLessThanOrEqual(2);
          seen.push(...result.sessions.map((session) => session.sessionId));
          before = result.nextCursor;
          if (before === undefined) break;
        }
        expect(seen).toEqual([...ids].reverse());
      }
      await refusal(() => b.list({ limit: 2, before: 'not a cursor' }), 'BAD_CURSOR');
    });

    it('lists within a scope: a user’s own sessions, plus a shared one', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const mine = await a.create({ task: 'Mine', ownedBy: { id: 'u1', name: 'Uma' } });
      const theirs = await a.create({ task: 'Theirs', ownedBy: { id: 'u2', name: 'Udo' } });
      await a.create({ task: 'Nobody’s' });
      const own = await b.list({ limit: 10, scope: { ownerId: 'u1' } });
      expect(own.sessions.map((session) => session.sessionId)).toEqual([mine.sessionId]);
      const withShared = await b.list({ limit: 10, scope: { ownerId: 'u1', sessionId: theirs.sessionId } });
      expect(withShared.sessions.map((session) => session.sessionId)).toEqual([theirs.sessionId, mine.sessionId]);
      const linkOnly = await b.list({ limit: 10, scope: { sessionId: theirs.sessionId } });
      expect(linkOnly.sessions.map((session) => session.sessionId)).toEqual([theirs.sessionId]);
    });
  });
}
