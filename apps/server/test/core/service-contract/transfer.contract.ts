import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { exportNdjson } from '../../../src/core/transfer/session-export.js';
import { parseImport } from '../../../src/core/transfer/session-import.js';
import { refusal } from '../support/refusal.js';
import type { ServiceTargetFactory } from './service-target.js';
import { chainOf, completedSession, createdInfo, ends, foldInto, lastSeqOf, nextFrame, snapshotOf } from './service-support.js';

/** `snapshot`, `exportSession` and `importSession`. */
export function describeTransfer(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: snapshot, export and import`, () => {
    it('gives the same snapshot from either service, the fold of the session’s events; none for an unknown session', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await completedSession(target);
      const folded = foldInto(creator.events(sessionId), createdInfo(creator, sessionId));
      expect(await snapshotOf(a, sessionId)).toEqual(folded);
      expect(await snapshotOf(b, sessionId)).toEqual(folded);
      expect(await b.snapshot('no-such-session')).toBeUndefined();
    });

    it('exports a session from the other service: its record and every event as it was stored', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await completedSession(target);
      const exported = await b.exportSession(sessionId);
      expect(exported.record).toMatchObject({ info: { sessionId, status: 'completed', revision: 0 }, lastSeq: lastSeqOf(creator, sessionId) });
      expect(exported.snapshot).toBeUndefined();
      expect(exported.frames.map((frame) => JSON.parse(frame) as SessionEvent)).toEqual(creator.events(sessionId));
      await refusal(() => b.exportSession('no-such-session'), 'SESSION_NOT_FOUND');
    });

    it('imports an export as a new session with the same chain, owned by the importer, and tells the list watchers of every service', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId } = await completedSession(target);
      const source = await snapshotOf(a, sessionId);
      const parsed = parseImport(exportNdjson(await a.exportSession(sessionId)), new Date().toISOString());
      const watchers = [target.peer('watcher-a'), target.peer('watcher-b')];
      await a.watchList({ peer: watchers[0]! }, 10);
      await b.watchList({ peer: watchers[1]! }, 10);

      const info = await b.importSession(parsed, { id: 'u1', name: 'Uma' });
      expect(info.sessionId).not.toBe(sessionId);
      expect(info).toMatchObject({ task: 'Add two and three', status: 'completed', owner: { id: 'u1', name: 'Uma' } });
      for (const watcher of watchers) {
        await nextFrame(watcher, 'the imported session', (frame) => frame.type === 'sessions.changed' && (frame.session as { sessionId: string }).sessionId === info.sessionId);
      }
      const imported = await snapshotOf(a, info.sessionId);
      expect(imported.session).toMatchObject({ sessionId: info.sessionId, status: 'completed' });
      expect(chainOf(imported).map((step) => [step.kind, step.content])).toEqual(chainOf(source).map((step) => [step.kind, step.content]));
      expect(await a.accessFacts(info.sessionId)).toEqual({ owner: { id: 'u1', name: 'Uma' }, shares: [] });
      // Exported again, the import folds to what it is.
      const again = await a.exportSession(info.sessionId);
      expect(foldInto(again.frames.map((frame) => JSON.parse(frame) as SessionEvent), imported.session).chain).toEqual(imported.chain);
    });
  });
}
