import type { EventStore } from '../core/persistence/event-store.js';
import { loadSession } from '../core/persistence/session-loader.js';
import { correctionsInState } from './correction-of-event.js';

/** Sessions read per page of the rebuild. */
const REBUILD_PAGE = 100;

/**
 * Build the index from the log when the store has none yet (a database from before it): one pass
 * over every session at start, before any request is served, never per request. Returns how many
 * sessions were read (0 when the index was built already). A session whose log cannot be folded
 * is reported and skipped: it cannot be opened either.
 */
export async function buildCorrectionIndex(store: EventStore, reportError: (context: string, error: unknown) => void = () => {}): Promise<number> {
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
