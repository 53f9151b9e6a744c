import type { EventStore } from '../core/persistence/event-store.js';
import { loadSession } from '../core/persistence/session-loader.js';
import { correctionsInState } from './correction-of-event.js';
import { MemoryCorrections } from './memory-corrections.js';
import type { StoredCorrections } from './stored-corrections.js';

/** A store with its index of corrections. */
export type IndexedStore<S extends EventStore = EventStore> = S & { readonly corrections: StoredCorrections };

/**
 * `store` as is when it keeps an index; else the same store with an index in memory beside it,
 * written after each append and emptied with each deletion (rebuilt at every start).
 */
export function withCorrectionIndex<S extends EventStore>(store: S): IndexedStore<S> {
  if (store.corrections !== undefined) return store as IndexedStore<S>;
  const corrections = new MemoryCorrections({ built: false });
  return new Proxy(store, {
    get(target, property) {
      if (property === 'corrections') return corrections;
      if (property === 'appendBatch') {
        return async (batch: Parameters<EventStore['appendBatch']>[0]) => {
          await target.appendBatch(batch);
          corrections.write(batch.corrections ?? []);
        };
      }
      if (property === 'deleteSession') {
        return async (sessionId: string) => {
          await target.deleteSession(sessionId);
          corrections.removeSession(sessionId);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as IndexedStore<S>;
}

/** Sessions read per page of the rebuild. */
const REBUILD_PAGE = 100;

/**
 * Build the index from the log when the store has none yet (a database from before it): one pass
 * over every session at start, before any request is served, never per request. Returns how many
 * sessions were read (0 when the index was built already). A session whose log cannot be folded
 * is reported and skipped: it cannot be opened either.
 */
export async function buildCorrectionIndex(store: IndexedStore, reportError: (context: string, error: unknown) => void = () => {}): Promise<number> {
  const index = store.corrections;
  if (await index.isBuilt()) return 0;
  let read = 0;
  let before: string | undefined;
  do {
    const page = await store.listSessions({ limit: REBUILD_PAGE, ...(before === undefined ? {} : { before }) });
    for (const info of page.sessions) {
      try {
        const loaded = await loadSession(store, info.sessionId);
        if (loaded !== undefined) await index.putRebuilt(correctionsInState(loaded.state));
      } catch (error) {
        reportError(`rebuilding the corrections of session ${info.sessionId} failed`, error);
      }
      read += 1;
    }
    before = page.nextCursor;
  } while (before !== undefined);
  await index.markBuilt();
  return read;
}
