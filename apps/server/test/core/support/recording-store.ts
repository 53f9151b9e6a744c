import type { SessionEvent, SessionInfo, SessionStatus } from '@interthought/protocol';
import type { EventStore, SessionPage, SessionRecord } from '../../../src/core/event-store.js';
import { MemoryEventStore } from '../../../src/core/memory-event-store.js';
import type { Peer } from '../../../src/core/session-service.js';

/** One entry of the shared journal: a batch written, or a frame sent to a peer. */
export type JournalEntry =
  | { op: 'write'; seqs: string[] }
  | { op: 'send'; peer: string; key: string | undefined }
  | { op: 'update'; sessionId: string; status: string; revision: number };

function keyOf(event: { sessionId?: unknown; seq?: unknown }): string {
  return `${String(event.sessionId)}#${String(event.seq)}`;
}

/**
 * A MemoryEventStore that journals every `appendBatch` (and can be told to fail), so a test
 * can check the order of writes and sends across the whole core.
 */
export class RecordingStore implements EventStore {
  readonly inner: MemoryEventStore;
  readonly journal: JournalEntry[] = [];
  /** While true, `appendBatch` throws (a full disk, a locked database). */
  failWrites = false;
  batches = 0;
  /** How many times a session's log was read (a reload from the store reads it). */
  logReads = 0;

  constructor(inner = new MemoryEventStore()) {
    this.inner = inner;
  }

  createSession(record: SessionRecord): void {
    this.inner.createSession(record);
  }
  updateSession(info: SessionInfo): void {
    this.inner.updateSession(info);
    this.journal.push({ op: 'update', sessionId: info.sessionId, status: info.status, revision: info.revision });
  }
  getSession(sessionId: string): SessionRecord | undefined {
    return this.inner.getSession(sessionId);
  }
  listSessionsByStatus(status: SessionStatus): SessionRecord[] {
    return this.inner.listSessionsByStatus(status);
  }
  listSessions(options: { limit: number; before?: string }): SessionPage {
    return this.inner.listSessions(options);
  }
  deleteSession(sessionId: string): void {
    this.inner.deleteSession(sessionId);
  }
  /** Called inside every successful `appendBatch`, e.g. to advance a fake clock by what a commit "costs". */
  onAppend: (() => void) | undefined;
  appendBatch(events: readonly SessionEvent[]): void {
    if (this.failWrites) throw new Error('disk full');
    this.inner.appendBatch(events);
    this.onAppend?.();
    this.batches += 1;
    this.journal.push({ op: 'write', seqs: events.map(keyOf) });
  }
  readEvents(sessionId: string, afterSeq: number, limit?: number): SessionEvent[] {
    this.logReads += 1;
    return this.inner.readEvents(sessionId, afterSeq, limit);
  }
  firstKeptSeq(sessionId: string): number | undefined {
    return this.inner.firstKeptSeq(sessionId);
  }
  readSnapshot(sessionId: string) {
    return this.inner.readSnapshot(sessionId);
  }
  close(): void {
    this.inner.close();
  }

  /** A peer that journals what it is sent into this store's journal. */
  peer(id: string): Peer & { frames: string[] } {
    const frames: string[] = [];
    return {
      id,
      frames,
      send: (frame: string) => {
        frames.push(frame);
        const parsed = JSON.parse(frame) as { sessionId?: unknown; seq?: unknown };
        // Snapshots and answers carry no event of their own; session events carry sessionId and seq.
        const isEvent = parsed.seq !== undefined && parsed.sessionId !== undefined;
        this.journal.push({ op: 'send', peer: id, key: isEvent ? keyOf(parsed) : undefined });
      },
    };
  }

  /** Every session event sent was in a batch written before it was sent. */
  sentOnlyAfterWritten(): boolean {
    return this.sentBeforeWritten().length === 0;
  }

  /** The sends of events not yet written when they were sent (empty when all is well). */
  sentBeforeWritten(): string[] {
    const written = new Set<string>();
    const early: string[] = [];
    for (const entry of this.journal) {
      if (entry.op === 'write') for (const key of entry.seqs) written.add(key);
      else if (entry.op === 'send' && entry.key !== undefined && !written.has(entry.key)) early.push(`${entry.peer}:${entry.key}`);
    }
    return early;
  }
}
