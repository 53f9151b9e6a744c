import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { SessionEvent, SessionInfo, SessionSnapshotData, SessionStatus } from '@interthought/protocol';
import { EventStoreError, type AppendBatch, type EventStore, type SessionPage, type SessionRecord } from '../core/persistence/event-store.js';
import { schemaVersion } from './sqlite/migrations.js';
import { openDatabase, type OpenedDatabase, type SynchronousMode } from './sqlite/open-database.js';
import type { ProcessLock } from './sqlite/process-lock.js';
import { Retention } from './sqlite/retention.js';
import { decodeCursor, pageOfRows, infoToUpdate, recordToInsert, rowToRecord, type SessionRow } from './sqlite/session-rows.js';
import { prepareStatements, type Statements } from './sqlite/statements.js';
import { StoreOpenError } from './sqlite/open-errors.js';
import { SqliteCorrections } from './sqlite/sqlite-corrections.js';
import type { IndexedCorrection } from '../corrections/correction-index.js';

/** The `secrets` row of the key share links are signed with. */
const SHARING_KEY = 'sharing-key';
export { StoreOpenError } from './sqlite/open-errors.js';
export type { StoreOpenErrorCode } from './sqlite/open-errors.js';
export type { SynchronousMode } from './sqlite/open-database.js';

export interface SqliteEventStoreOptions {
  /**
   * Keep about this many newest events per session (up to a quarter more between trims); older
   * ones are folded into the session's snapshot. Unset: keep every event.
   */
  retainEventsPerSession?: number;
  /**
   * `FULL` (default): a committed batch survives a power loss, so a seq a client has seen is never
   * reused after a restart. Group commit makes that one fsync per synchronous run, or per turn
   * while fsyncs are dear (see `CommitWindow`), not per event, which is why FULL is affordable.
   * `NORMAL` survives process crashes only.
   */
  synchronous?: SynchronousMode;
}

/** The connection's configuration, as reported by `SqliteEventStore.settings()`. */
export interface StoreSettings {
  path: string;
  schemaVersion: number;
  journalMode: string;
  lockingMode: string;
  synchronous: string;
  busyTimeoutMs: number;
  foreignKeys: boolean;
  retainEventsPerSession: number | undefined;
}

/** PRAGMA synchronous reads back as a number. */
const SYNCHRONOUS_NAMES: readonly string[] = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

/** No upper bound for the `readEvents` statement's `seq <= ?`. */
const NO_SEQ_LIMIT = Number.MAX_SAFE_INTEGER;

function checkLimit(limit: number, what: string): void {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new EventStoreError('BAD_LIMIT', `${what} limit must be a non-negative integer, got ${String(limit)}.`);
  }
}

function serialiseEvent(event: SessionEvent): string {
  if (typeof event?.sessionId !== 'string' || !Number.isSafeInteger(event.seq) || typeof event.type !== 'string') {
    throw new EventStoreError('BAD_EVENT', 'Every event needs a string sessionId and type and an integer seq; the batch was not written.');
  }
  try {
    return JSON.stringify(event);
  } catch (error) {
    throw new EventStoreError('BAD_EVENT', `Event ${event.seq} of session ${event.sessionId} cannot be serialised (${(error as Error).message}); the batch was not written.`);
  }
}

/**
 * The durable `EventStore`: one SQLite file in WAL mode, used by this process alone. Open it with
 * `openSqliteEventStore`. SQLite answers synchronously, so every promise here is already settled
 * when it is returned: the asynchronous interface costs the embedded path one microtask, no I/O
 * wait. `appendBatch` is one transaction.
 */
export class SqliteEventStore implements EventStore {
  /** The absolute path of the database file, or `:memory:`. */
  readonly path: string;
  private readonly db: Database.Database;
  private readonly statements: Statements;
  private readonly lock: ProcessLock | undefined;
  private readonly retention: Retention | undefined;
  /** The index of corrections (PROTOCOL.md §26), a table of the same file. */
  readonly corrections: SqliteCorrections;
  private readonly writeBatch: (
    events: readonly SessionEvent[],
    frames: readonly string[] | undefined,
    summaries: readonly SessionInfo[],
    corrections: readonly IndexedCorrection[],
  ) => Map<string, number>;
  private closed = false;

  constructor(opened: OpenedDatabase, options: SqliteEventStoreOptions = {}) {
    this.path = opened.path;
    this.db = opened.db;
    this.lock = opened.lock;
    this.statements = prepareStatements(this.db);
    const keep = options.retainEventsPerSession;
    this.retention = keep === undefined ? undefined : new Retention(this.db, this.statements, keep);
    this.corrections = new SqliteCorrections(this.db, () => this.ensureOpen());
    // Events, the summaries they changed and the corrections they make share one transaction:
    // one fsync, and neither a stored summary nor the index runs ahead of (or behind) its log.
    this.writeBatch = this.db.transaction(
      (events: readonly SessionEvent[], frames: readonly string[] | undefined, summaries: readonly SessionInfo[], corrections: readonly IndexedCorrection[]) => {
        const lastSeqs = this.insertBatch(events, frames);
        const at = new Date().toISOString();
        for (const info of summaries) this.writeSummary(info, at);
        this.corrections.write(corrections);
        return lastSeqs;
      },
    );
  }

  async createSession(record: SessionRecord): Promise<void> {
    this.ensureOpen();
    const { sessionId } = record.info;
    if (this.statements.lastSeq.get(sessionId)) {
      throw new EventStoreError('SESSION_EXISTS', `Session ${sessionId} already exists in the store.`);
    }
    this.statements.insertSession.run(recordToInsert(record, new Date().toISOString()));
  }

  async updateSession(info: SessionInfo): Promise<void> {
    this.ensureOpen();
    this.writeSummary(info, new Date().toISOString());
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    this.ensureOpen();
    const row = this.statements.getSession.get(sessionId);
    return row ? rowToRecord(row) : undefined;
  }

  /** Newest first, by (createdAt, sessionId): a cursor stays valid while sessions come and go. */
  async listSessions(options: { limit: number; before?: string; ownerId?: string }): Promise<SessionPage> {
    this.ensureOpen();
    checkLimit(options.limit, 'The sessions');
    // One row more than asked says whether a next page exists.
    const fetch = options.limit + 1;
    const cursor = options.before === undefined ? undefined : decodeCursor(options.before);
    const { ownerId } = options;
    const { statements } = this;
    let rows: SessionRow[];
    if (ownerId === undefined) rows = cursor ? statements.listAfterCursor.all(cursor.createdAt, cursor.id, fetch) : statements.listFirstPage.all(fetch);
    else rows = cursor ? statements.listOwnersAfterCursor.all(ownerId, cursor.createdAt, cursor.id, fetch) : statements.listOwnersFirstPage.all(ownerId, fetch);
    return pageOfRows(rows, options.limit);
  }

  /** Every session with this status, oldest first (start-up marks in-flight ones `interrupted`). */
  async listSessionsByStatus(status: SessionStatus): Promise<SessionRecord[]> {
    this.ensureOpen();
    return this.statements.listByStatus.all(status).map(rowToRecord);
  }

  /** Remove the session, its events and its snapshot together. Unknown ids are ignored. */
  async deleteSession(sessionId: string): Promise<void> {
    this.ensureOpen();
    this.db.transaction(() => {
      this.statements.deleteEvents.run(sessionId);
      this.statements.deleteSnapshot.run(sessionId);
      this.corrections.removeSession(sessionId);
      this.statements.deleteSession.run(sessionId);
    })();
    this.retention?.forget(sessionId);
  }

  /**
   * Write the batch in one transaction, or nothing: it is refused whole if an event's session is
   * unknown or its seqs do not continue the stored `lastSeq` one by one. Durable on return.
   */
  async appendBatch({ events, frames, summaries = [], corrections = [] }: AppendBatch): Promise<void> {
    this.ensureOpen();
    if (events.length === 0 && summaries.length === 0) return;
    const lastSeqs = this.writeBatch(events, frames.length === events.length ? frames : undefined, summaries, corrections);
    this.retention?.afterAppend(lastSeqs);
  }

  async readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<SessionEvent[]> {
    return this.readFramesNow(sessionId, afterSeq, limit).map((json) => JSON.parse(json) as SessionEvent);
  }

  /**
   * The same events as `readEvents`, as the JSON strings they were stored as: a replay can send
   * them without parsing and re-serialising.
   */
  async readEventFrames(sessionId: string, afterSeq: number, limit?: number): Promise<string[]> {
    return this.readFramesNow(sessionId, afterSeq, limit);
  }

  private readFramesNow(sessionId: string, afterSeq: number, limit?: number): string[] {
    this.ensureOpen();
    if (limit !== undefined) checkLimit(limit, 'The events');
    return this.statements.readEvents.all(sessionId, afterSeq, NO_SEQ_LIMIT, limit ?? -1).map((row) => row.json);
  }

  async firstKeptSeq(sessionId: string): Promise<number | undefined> {
    this.ensureOpen();
    return this.statements.firstKeptSeq.get(sessionId)?.seq ?? undefined;
  }

  /**
   * The state as of the last trimmed event; undefined until retention first trims the session.
   * Typed as the reducer's snapshot data, which fits the interface's wider return type.
   */
  async readSnapshot(sessionId: string): Promise<SessionSnapshotData | undefined> {
    this.ensureOpen();
    const row = this.statements.readSnapshot.get(sessionId);
    return row ? (JSON.parse(row.json) as SessionSnapshotData) : undefined;
  }

  /** How the connection is configured, as SQLite reports it (for health pages and tests). */
  settings(): StoreSettings {
    this.ensureOpen();
    const read = (name: string): unknown => this.db.pragma(name, { simple: true });
    return {
      path: this.path,
      schemaVersion: schemaVersion(this.db),
      journalMode: String(read('journal_mode')),
      lockingMode: String(read('locking_mode')),
      synchronous: SYNCHRONOUS_NAMES[Number(read('synchronous'))] ?? String(read('synchronous')),
      busyTimeoutMs: Number(read('busy_timeout')),
      foreignKeys: read('foreign_keys') === 1,
      retainEventsPerSession: this.retention?.keep,
    };
  }

  /** Made by whichever process asks first (INSERT OR IGNORE), then read by every one: one key per file. */
  async sharingKey(): Promise<string> {
    this.ensureOpen();
    this.statements.keepSecret.run(SHARING_KEY, randomBytes(32).toString('base64url'));
    return this.statements.readSecret.get(SHARING_KEY)!.value;
  }

  /** Close the file and release it for the next server. Idempotent. */
  async close(): Promise<void> {
    this.closeNow();
  }

  /** Close synchronously (process exit paths that cannot await). Idempotent. */
  closeNow(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db.close();
    } finally {
      this.lock?.release();
    }
  }

  private insertBatch(events: readonly SessionEvent[], frames: readonly string[] | undefined): Map<string, number> {
    const lastSeqs = new Map<string, number>();
    // Everything is checked and serialised before the first insert, so a refusal writes nothing.
    const rows: Array<[sessionId: string, seq: number, type: string, json: string]> = [];
    for (const [index, event] of events.entries()) {
      const json = frames?.[index] ?? serialiseEvent(event);
      const last = lastSeqs.get(event.sessionId) ?? this.storedLastSeq(event.sessionId);
      if (event.seq !== last + 1) {
        throw new EventStoreError(
          'SEQ_NOT_CONTIGUOUS',
          `Session ${event.sessionId}: event seq ${event.seq} does not follow seq ${last}; the batch was not written.`,
        );
      }
      lastSeqs.set(event.sessionId, event.seq);
      rows.push([event.sessionId, event.seq, event.type, json]);
    }
    for (const row of rows) this.statements.insertEvent.run(...row);
    for (const [sessionId, lastSeq] of lastSeqs) this.statements.setLastSeq.run(lastSeq, sessionId);
    return lastSeqs;
  }

  private writeSummary(info: SessionInfo, at: string): void {
    const { changes } = this.statements.updateSession.run(infoToUpdate(info, at));
    if (changes === 0) throw this.notFound(info.sessionId);
  }

  private storedLastSeq(sessionId: string): number {
    const row = this.statements.lastSeq.get(sessionId);
    if (!row) throw this.notFound(sessionId);
    return row.last_seq;
  }

  private notFound(sessionId: string): EventStoreError {
    return new EventStoreError('SESSION_NOT_FOUND', `Session ${sessionId} is not in the store; create it before writing to it.`);
  }

  private ensureOpen(): void {
    if (this.closed) throw new EventStoreError('STORE_CLOSED', `The event store ${this.path} is closed.`);
  }
}

/**
 * Open the SQLite event store at `file` (created with its folder if missing; `:memory:` for a
 * private in-memory one). Throws `StoreOpenError`, naming the path, if another server uses the
 * file, it is not a SQLite database, it comes from a newer Interthought, or it cannot be opened.
 */
export function openSqliteEventStore(file: string, options: SqliteEventStoreOptions = {}): SqliteEventStore {
  const keep = options.retainEventsPerSession;
  if (keep !== undefined && (!Number.isSafeInteger(keep) || keep < 1)) {
    throw new StoreOpenError('BAD_OPTIONS', file, `retainEventsPerSession must be a positive integer, got ${String(keep)}.`);
  }
  const synchronous = options.synchronous ?? 'FULL';
  // Checked at run time too: the value may come from configuration, and it ends up in a PRAGMA.
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') {
    throw new StoreOpenError('BAD_OPTIONS', file, `synchronous must be "FULL" or "NORMAL", got ${JSON.stringify(synchronous)}.`);
  }
  return new SqliteEventStore(openDatabase(file, synchronous), options);
}
