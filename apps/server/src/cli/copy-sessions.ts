import type { EventStore } from '../core/persistence/event-store.js';
import type { PostgresEventStore } from '../store/postgres/postgres-event-store.js';

/** What a copy did, and what its check found. */
export interface CopyReport {
  sessions: number;
  events: number;
  /** Sessions whose last seq or event count differ between the two stores after the copy (empty: verified). */
  mismatches: string[];
}

const PAGE = 100;

/**
 * Copy every session of `source` (its record, snapshot and kept events) and its share-link key into
 * `target`, then check each session's last seq and event count on both sides. Idempotent: a
 * re-run after an interruption writes what is missing and nothing twice.
 */
export async function copySessions(source: EventStore, target: PostgresEventStore, progress: (line: string) => void = () => undefined): Promise<CopyReport> {
  await target.adoptSharingKey(await source.sharingKey());
  const report: CopyReport = { sessions: 0, events: 0, mismatches: [] };
  let before: string | undefined;
  do {
    const page = await source.listSessions(before === undefined ? { limit: PAGE } : { limit: PAGE, before });
    for (const info of page.sessions) {
      const record = await source.getSession(info.sessionId);
      if (record === undefined) continue; // deleted while we copied
      const frames = await source.readEventFrames(info.sessionId, 0);
      await target.importSession({ record, snapshot: await source.readSnapshot(info.sessionId), frames });
      const copied = await target.counts(info.sessionId);
      if (copied?.lastSeq !== record.lastSeq || copied.events !== frames.length) {
        report.mismatches.push(`${info.sessionId}: source last seq ${record.lastSeq} with ${frames.length} events, target ${copied ? `last seq ${copied.lastSeq} with ${copied.events} events` : 'missing'}`);
      }
      report.sessions += 1;
      report.events += frames.length;
    }
    progress(`${report.sessions} sessions, ${report.events} events copied`);
    before = page.nextCursor;
  } while (before !== undefined);
  return report;
}
