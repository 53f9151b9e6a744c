import type { SessionEvent, SessionInfo, SessionSnapshotData, SessionStatus } from '@interthought/protocol';
import type { EventStore, SessionPage, SessionRecord } from '../../../src/core/event-store.js';

/** `sessionId#seq`, the identity of one event. */
export const eventKey = (event: { sessionId: string; seq: number }): string => `${event.sessionId}#${event.seq}`;

/**
 * Any store (here: the real SQLite one) with a journal of what was committed: every batch as it
 * was written, and how often logs were read. Calls go straight through, so what the core sees is
 * exactly the inner store's behaviour.
 */
export class JournalingStore implements EventStore {
  /** The keys of each committed batch, in commit order. */
  readonly batches: string[][] = [];
  readonly written = new Set<string>();
  /** `readEvents` calls, i.e. session logs read back (lazy loads and replays). */
  logReads = 0;

  /**
   * @param commitCostMs how long every `appendBatch` takes at least: a slow disk's fsync, made
   *   real by waiting (the outbox times its transactions on the real clock).
   */
  constructor(
    readonly inner: EventStore,
    private readonly commitCostMs = 0,
  ) {}

  createSession(record: SessionRecord): void {
    this.inner.createSession(record);
  }
  updateSession(info: SessionInfo): void {
    this.inner.updateSession(info);
  }
  getSession(sessionId: string): SessionRecord | undefined {
    return this.inner.getSession(sessionId);
  }
  listSessionsByStatus(status: SessionStatus): SessionRecord[] {
    if (!this.inner.listSessionsByStatus) throw new Error('The inner store cannot list sessions by status.');
    return this.inner.listSessionsByStatus(status);
  }
  listSessions(options: { limit: number; before?: string }): SessionPage {
    return this.inner.listSessions(options);
  }
  deleteSession(sessionId: string): void {
    this.inner.deleteSession(sessionId);
  }
  appendBatch(events: readonly SessionEvent[], frames?: readonly string[]): void {
    const started = performance.now();
    this.inner.appendBatch(events, frames);
    while (performance.now() - started < this.commitCostMs) {
      // A disk this slow blocks the thread for the whole commit, as better-sqlite3's fsync does.
    }
    // Recorded only once the inner store returned: the batch is committed.
    const keys = events.map(eventKey);
    this.batches.push(keys);
    for (const key of keys) this.written.add(key);
  }
  readEvents(sessionId: string, afterSeq: number, limit?: number): SessionEvent[] {
    this.logReads += 1;
    return this.inner.readEvents(sessionId, afterSeq, limit);
  }
  firstKeptSeq(sessionId: string): number | undefined {
    return this.inner.firstKeptSeq(sessionId);
  }
  readSnapshot(sessionId: string): SessionSnapshotData | undefined {
    return this.inner.readSnapshot?.(sessionId);
  }
  close(): void {
    this.inner.close();
  }
}
