import type { SessionEvent, SessionInfo, SessionSnapshotData, SessionStatus } from '@interthought/protocol';
import type { AppendBatch, EventStore, SessionPage, SessionRecord } from '../../src/core/persistence/event-store.js';
import type { StoredCorrections } from '../../src/corrections/stored-corrections.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import type { Frame } from '../../src/core/fanout/frame.js';
import type { Peer } from '../../src/core/fanout/peer.js';

/** One entry of the shared journal: a batch written, a summary stored, or a frame sent to a peer. */
export type JournalEntry =
  | { op: 'write'; seqs: string[] }
  | { op: 'send'; peer: string; key: string | undefined }
  | { op: 'update'; sessionId: string; status: string; revision: number };

/** `sessionId#seq`, the identity of one event. */
export const eventKey = (event: { sessionId?: unknown; seq?: unknown }): string => `${String(event.sessionId)}#${String(event.seq)}`;

export interface RecordingStoreOptions {
  /**
   * How long every `appendBatch` takes at least: a slow disk's fsync, made real by blocking the
   * thread (as better-sqlite3's fsync does), since the outbox times its commits on the real clock.
   */
  commitCostMs?: number;
}

/**
 * The one recording wrapper of the tests: any store (in memory by default, the real SQLite one in
 * durability tests) whose calls go straight through, frames included, with a journal of what was
 * committed and sent, so a test can check the order of writes and sends across the whole core.
 * It can be told to fail writes (a full disk, a lost connection).
 */
export class RecordingStore implements EventStore {
  readonly inner: EventStore;
  readonly journal: JournalEntry[] = [];
  /** The keys of each committed batch, in commit order. */
  readonly committedBatches: string[][] = [];
  readonly written = new Set<string>();
  /** While true, `appendBatch` rejects and writes nothing. */
  failWrites = false;
  /** Successful `appendBatch` calls. */
  batches = 0;
  /** How many times a session's log was read back (lazy loads and replays). */
  logReads = 0;
  /** Called inside every successful `appendBatch`, e.g. to advance a fake clock by what a commit "costs". */
  onAppend: (() => void) | undefined;
  readonly #commitCostMs: number;

  constructor(inner: EventStore = new MemoryEventStore(), options: RecordingStoreOptions = {}) {
    this.inner = inner;
    this.#commitCostMs = options.commitCostMs ?? 0;
  }

  createSession(record: SessionRecord): Promise<void> {
    return this.inner.createSession(record);
  }
  async updateSession(info: SessionInfo): Promise<void> {
    await this.inner.updateSession(info);
    this.#journalSummary(info);
  }
  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.inner.getSession(sessionId);
  }
  listSessionsByStatus(status: SessionStatus): Promise<SessionRecord[]> {
    return this.inner.listSessionsByStatus(status);
  }
  listSessions(options: { limit: number; before?: string; ownerId?: string }): Promise<SessionPage> {
    return this.inner.listSessions(options);
  }

  /** The inner store's index of corrections: it is written by the inner store's own appends. */
  get corrections(): StoredCorrections {
    return this.inner.corrections;
  }

  sharingKey(): Promise<string> {
    return this.inner.sharingKey();
  }
  deleteSession(sessionId: string): Promise<void> {
    return this.inner.deleteSession(sessionId);
  }
  async appendBatch(batch: AppendBatch): Promise<void> {
    if (this.failWrites) throw new Error('disk full');
    const started = performance.now();
    await this.inner.appendBatch(batch);
    while (performance.now() - started < this.#commitCostMs) {
      // A disk this slow blocks the thread for the whole commit.
    }
    this.onAppend?.();
    // Recorded only once the inner store answered: the batch is committed.
    this.batches += 1;
    const keys = batch.events.map(eventKey);
    this.committedBatches.push(keys);
    for (const key of keys) this.written.add(key);
    this.journal.push({ op: 'write', seqs: keys });
    for (const info of batch.summaries ?? []) this.#journalSummary(info);
  }
  readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<SessionEvent[]> {
    this.logReads += 1;
    return this.inner.readEvents(sessionId, afterSeq, limit);
  }
  readEventFrames(sessionId: string, afterSeq: number, limit?: number): Promise<string[]> {
    this.logReads += 1;
    return this.inner.readEventFrames(sessionId, afterSeq, limit);
  }
  firstKeptSeq(sessionId: string): Promise<number | undefined> {
    return this.inner.firstKeptSeq(sessionId);
  }
  readSnapshot(sessionId: string): Promise<SessionSnapshotData | undefined> {
    return this.inner.readSnapshot(sessionId);
  }
  close(): Promise<void> {
    return this.inner.close();
  }

  #journalSummary(info: SessionInfo): void {
    this.journal.push({ op: 'update', sessionId: info.sessionId, status: info.status, revision: info.revision });
  }

  /** A peer that journals what it is sent into this store's journal. */
  peer(id: string): Peer & { frames: string[] } {
    const frames: string[] = [];
    const send = ({ text }: Frame): void => {
      frames.push(text);
      const parsed = JSON.parse(text) as { sessionId?: unknown; seq?: unknown };
      // Snapshots and answers carry no event of their own; session events carry sessionId and seq.
      const isEvent = parsed.seq !== undefined && parsed.sessionId !== undefined;
      this.journal.push({ op: 'send', peer: id, key: isEvent ? eventKey(parsed) : undefined });
    };
    return { id, frames, send, sendLive: send };
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
