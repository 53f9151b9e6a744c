import { randomBytes } from 'node:crypto';
import {
  applyEvent,
  createSessionState,
  toSnapshot,
  type SessionEvent,
  type SessionInfo,
  type SessionSnapshotData,
  type SessionState,
  type SessionStatus,
} from '@interthought/protocol';
import type { AppendBatch, EventStore, SessionPage, SessionRecord } from '../core/persistence/event-store.js';
import { badListCursor } from '../core/session-error.js';
import { stateBeforeFirstEvent } from '../core/persistence/session-loader.js';
import { MemoryCorrections } from '../corrections/memory-corrections.js';

export interface MemoryEventStoreOptions {
  /**
   * Keep at most this many events per session (default: all); when over, the oldest are
   * trimmed down to three quarters of it. Trimmed events are folded into
   * a snapshot kept in their place, so the session can still be rebuilt and a subscriber whose
   * cursor is older than what is kept gets a snapshot instead of a replay.
   */
  maxEventsPerSession?: number;
}

interface StoredSession {
  record: SessionRecord;
  /** Creation order, used as the list cursor. */
  ordinal: number;
  events: SessionEvent[];
  /** `frames[i]` is `events[i]` serialised, when the writer gave it (see `EventStore.appendBatch`). */
  frames: (string | undefined)[];
  /** The fold of every trimmed event; undefined until something is trimmed. */
  trimmed: SessionState | undefined;
}

function copyRecord(record: SessionRecord): SessionRecord {
  return { info: { ...record.info }, options: { ...record.options }, lastSeq: record.lastSeq };
}

/**
 * An `EventStore` in memory: the default for tests and for running without a database file.
 * Nothing survives the process, but every contract of the interface holds (contiguous seqs,
 * all-or-nothing batches, newest-first paging, retention with a snapshot).
 */
export class MemoryEventStore implements EventStore {
  readonly #sessions = new Map<string, StoredSession>();
  readonly #maxEvents: number;
  #nextOrdinal = 1;
  #closed = false;

  constructor(options: MemoryEventStoreOptions = {}) {
    const max = options.maxEventsPerSession ?? Number.POSITIVE_INFINITY;
    if (!(max >= 1)) throw new RangeError('maxEventsPerSession must be at least 1.');
    this.#maxEvents = max;
  }

  readonly #sharingKey = randomBytes(32).toString('base64url');
  /** The index of corrections (PROTOCOL.md §26): the store starts empty, so there is nothing to rebuild. */
  readonly corrections = new MemoryCorrections();

  async createSession(record: SessionRecord): Promise<void> {
    this.#checkOpen();
    const { sessionId } = record.info;
    if (this.#sessions.has(sessionId)) throw new Error(`Session ${sessionId} already exists in the store.`);
    this.#sessions.set(sessionId, { record: copyRecord(record), ordinal: this.#nextOrdinal++, events: [], frames: [], trimmed: undefined });
  }

  async updateSession(info: SessionInfo): Promise<void> {
    this.#checkOpen();
    const stored = this.#require(info.sessionId);
    stored.record.info = { ...info };
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    const stored = this.#sessions.get(sessionId);
    return stored ? copyRecord(stored.record) : undefined;
  }

  async listSessionsByStatus(status: SessionStatus): Promise<SessionRecord[]> {
    return [...this.#sessions.values()].filter((stored) => stored.record.info.status === status).map((stored) => copyRecord(stored.record));
  }

  async listSessions(options: { limit: number; before?: string; ownerId?: string }): Promise<SessionPage> {
    const limit = Math.max(1, Math.floor(options.limit));
    const before = options.before === undefined ? Number.POSITIVE_INFINITY : Number(options.before);
    // Only the spelling nextCursor writes ("7", not "07", " 7" or "7.0"): one position, one cursor.
    if (options.before !== undefined && !(Number.isSafeInteger(before) && String(before) === options.before)) {
      throw badListCursor(options.before);
    }
    const { ownerId } = options;
    const older = [...this.#sessions.values()]
      .filter((stored) => stored.ordinal < before && (ownerId === undefined || stored.record.info.owner?.id === ownerId))
      .sort((a, b) => b.ordinal - a.ordinal);
    const page = older.slice(0, limit);
    const last = page[page.length - 1];
    const result: SessionPage = { sessions: page.map((stored) => ({ ...stored.record.info })) };
    if (older.length > limit && last) result.nextCursor = String(last.ordinal);
    return result;
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.#checkOpen();
    this.#sessions.delete(sessionId);
    this.corrections.removeSession(sessionId);
  }

  async appendBatch({ events, frames, summaries = [], corrections = [] }: AppendBatch): Promise<void> {
    this.#checkOpen();
    for (const info of summaries) this.#require(info.sessionId);
    // Check the whole batch first: it is written entirely or not at all.
    const lastSeqs = new Map<string, number>();
    for (const event of events) {
      const stored = this.#require(event.sessionId);
      const last = lastSeqs.get(event.sessionId) ?? stored.record.lastSeq;
      if (event.seq !== last + 1) {
        throw new Error(`Session ${event.sessionId}: expected seq ${last + 1} but the batch has ${event.seq}.`);
      }
      lastSeqs.set(event.sessionId, event.seq);
    }
    for (const [index, event] of events.entries()) {
      const stored = this.#require(event.sessionId);
      stored.events.push(event);
      stored.frames.push(frames?.[index]);
      stored.record.lastSeq = event.seq;
    }
    for (const info of summaries) this.#require(info.sessionId).record.info = { ...info };
    this.corrections.write(corrections);
    for (const sessionId of lastSeqs.keys()) this.#trim(this.#require(sessionId));
  }

  async readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<SessionEvent[]> {
    const stored = this.#sessions.get(sessionId);
    if (!stored || stored.events.length === 0) return [];
    const first = stored.events[0]!.seq;
    const start = Math.max(0, afterSeq + 1 - first);
    const end = limit === undefined ? stored.events.length : start + Math.max(0, limit);
    return stored.events.slice(start, end);
  }

  async readEventFrames(sessionId: string, afterSeq: number, limit?: number): Promise<string[]> {
    const stored = this.#sessions.get(sessionId);
    if (!stored || stored.events.length === 0) return [];
    const start = Math.max(0, afterSeq + 1 - stored.events[0]!.seq);
    const end = limit === undefined ? stored.events.length : start + Math.max(0, limit);
    const frames: string[] = [];
    for (let i = start; i < Math.min(end, stored.events.length); i++) frames.push(stored.frames[i] ?? JSON.stringify(stored.events[i]));
    return frames;
  }

  async firstKeptSeq(sessionId: string): Promise<number | undefined> {
    return this.#sessions.get(sessionId)?.events[0]?.seq;
  }

  async readSnapshot(sessionId: string): Promise<SessionSnapshotData | undefined> {
    const trimmed = this.#sessions.get(sessionId)?.trimmed;
    return trimmed ? toSnapshot(trimmed) : undefined;
  }

  /** Random per store: links last as long as the sessions they open. */
  async sharingKey(): Promise<string> {
    return this.#sharingKey;
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #trim(stored: StoredSession): void {
    if (stored.events.length <= this.#maxEvents) return;
    // Trim a quarter below the cap so the fold below runs once per many batches, not every one.
    const keep = Math.max(1, this.#maxEvents - Math.floor(this.#maxEvents / 4));
    const excess = stored.events.length - keep;
    // Fold into a copy: if an event did not fit, the kept snapshot must stay as it was.
    const state = stored.trimmed ? createSessionState(toSnapshot(stored.trimmed)) : stateBeforeFirstEvent(stored.record.info);
    try {
      for (const event of stored.events.slice(0, excess)) applyEvent(state, event);
    } catch {
      // Events that do not fold cannot be summarised: keep them rather than lose state.
      return;
    }
    stored.trimmed = state;
    stored.events.splice(0, excess);
    stored.frames.splice(0, excess);
  }

  #require(sessionId: string): StoredSession {
    const stored = this.#sessions.get(sessionId);
    if (!stored) throw new Error(`Session ${sessionId} is not in the store.`);
    return stored;
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error('The event store is closed.');
  }
}
