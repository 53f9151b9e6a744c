import type { EventStore } from '../core/persistence/event-store.js';
import { loadSession } from '../core/persistence/session-loader.js';
import { correctionsInState } from '../corrections/correction-of-event.js';
import type { PostgresEventStore, SessionLogCopy } from '../store/postgres/postgres-event-store.js';

/** What a copy did, and what its check found. */
export interface CopyReport {
  sessions: number;
  events: number;
  /** Records the target's corrections index holds for the copied sessions. */
  corrections: number;
  /** Sessions whose last seq or event count differ between the two stores after the copy (empty: verified). */
  mismatches: string[];
}

const PAGE = 100;

/** What a copy reads of its source: any store's reads (SQLite file, Redis cluster), nothing it writes. */
export type CopySource = Pick<EventStore, 'listSessions' | 'getSession' | 'readEventFrames' | 'readSnapshot' | 'sharingKey'>;

/**
 * Copy every session of `source` (its record, snapshot and kept events) and its share-link key into
 * `target`, then check each session's last seq and event count on both sides. Idempotent: a
 * re-run after an interruption writes what is missing and nothing twice.
 *
 * The corrections index is built on the target from each copied log (as the start-up rebuild
 * builds it), not copied from the source's: the log is what the index is derived from, and a
 * source from before the index (or one never started since) has no complete index to copy.
 */
export async function copySessions(source: CopySource, target: PostgresEventStore, progress: (line: string) => void = () => undefined): Promise<CopyReport> {
  await target.adoptSharingKey(await source.sharingKey());
  const report: CopyReport = { sessions: 0, events: 0, corrections: 0, mismatches: [] };
  let before: string | undefined;
  do {
    const page = await source.listSessions(before === undefined ? { limit: PAGE } : { limit: PAGE, before });
    for (const info of page.sessions) {
      const record = await source.getSession(info.sessionId);
      if (record === undefined) continue; // deleted while we copied
      const frames = await source.readEventFrames(info.sessionId, 0);
      const copy = { record, snapshot: await source.readSnapshot(info.sessionId), frames };
      await target.importSession(copy);
      const copied = await target.counts(info.sessionId);
      if (copied?.lastSeq !== record.lastSeq || copied.events !== frames.length) {
        report.mismatches.push(`${info.sessionId}: source last seq ${record.lastSeq} with ${frames.length} events, target ${copied ? `last seq ${copied.lastSeq} with ${copied.events} events` : 'missing'}`);
      }
      report.corrections += await indexCopiedLog(target, info.sessionId, copy);
      report.sessions += 1;
      report.events += frames.length;
    }
    progress(`${report.sessions} sessions, ${report.events} events copied, ${report.corrections} corrections indexed`);
    before = page.nextCursor;
  } while (before !== undefined);
  return report;
}

/**
 * Write the corrections of the copied session's log into the target's index (a replace on a
 * re-run); how many. A session with nothing stored yet has none.
 */
async function indexCopiedLog(target: PostgresEventStore, sessionId: string, copied: SessionLogCopy): Promise<number> {
  if (copied.frames.length === 0 && copied.snapshot === undefined) return 0;
  const loaded = await loadSession(target, sessionId);
  const corrections = loaded === undefined ? [] : correctionsInState(loaded.state);
  await target.corrections.putRebuilt(corrections);
  return corrections.length;
}
