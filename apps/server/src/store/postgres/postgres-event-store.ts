import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { SessionEvent, SessionInfo, SessionSnapshotData, SessionStatus, StoreHealth } from '@interthought/protocol';
import { EventStoreError, type AppendBatch, type EventStore, type SessionPage, type SessionRecord } from '../../core/persistence/event-store.js';
import type { StoreHealthProbe } from '../../core/persistence/store-health.js';
import { decodeCursor, pageOfRows, recordToInsert, rowToRecord, type SessionRow } from '../sqlite/session-rows.js';
import { appendInTransaction, notFound, updateParams, type AppendFence } from './appends.js';
import { appendSessionsInTransaction, type FencedSessionPart, type PartOutcome } from './fenced-appends.js';
import { connectPool, DEFAULT_POOL_SIZE, type PostgresConnectOptions } from './connect.js';
import { migrate, postgresSchemaVersion } from './migrations.js';
import { maskedUrl, PostgresOpenError } from './open-errors.js';
import { PostgresRetention } from './retention.js';
import { PostgresCorrections } from './postgres-corrections.js';
import { importSessionLog, importSharingKey, storedCounts, type SessionLogCopy } from './import-log.js';
import { FIRST_KEPT_SEQ, GET_SESSION, INSERT_SESSION, insertParams, LIST_BY_STATUS, LIST_PAGE, READ_EVENTS, READ_SNAPSHOT, UPDATE_SESSION } from './session-queries.js';

export { PostgresOpenError } from './open-errors.js';

/** The `secrets` row of the key share links are signed with. */
const SHARING_KEY = 'sharing-key';
export type { SessionLogCopy } from './import-log.js';
/** No upper bound for `READ_EVENTS`' `seq <= $3`. */
const NO_SEQ_LIMIT = Number.MAX_SAFE_INTEGER;

export interface PostgresEventStoreOptions extends PostgresConnectOptions {
  /** As SQLite's: keep about this many newest events per session, fold older ones into a snapshot. Unset: keep all. */
  retainEventsPerSession?: number;
}

/** A health probe never waits longer than this for the database: a health check must answer. */
const PROBE_TIMEOUT_MS = 2_000;

function checkLimit(limit: number, what: string): void {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new EventStoreError('BAD_LIMIT', `${what} limit must be a non-negative integer, got ${String(limit)}.`);
  }
}

/**
 * The `EventStore` on PostgreSQL: shared by every node that points at the database. Open it with
 * `openPostgresEventStore`. `appendBatch` is one transaction whose commit is the durability point
 * (synchronous_commit as the server has it, `on` by default), so an event is sent only once
 * Postgres has it on disk; the core's commit window batches appends while one is in flight.
 */
export class PostgresEventStore implements EventStore, StoreHealthProbe {
  readonly target: string;
  /** The index of corrections (PROTOCOL.md §26), a table of the same database. */
  readonly corrections: PostgresCorrections;
  private readonly retention: PostgresRetention | undefined;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    url: string,
    private readonly poolMax: number,
    retainEventsPerSession?: number,
  ) {
    this.target = maskedUrl(url);
    this.corrections = new PostgresCorrections(pool, () => this.ensureOpen());
    this.retention = retainEventsPerSession === undefined ? undefined : new PostgresRetention(pool, retainEventsPerSession);
  }

  async createSession(record: SessionRecord): Promise<void> {
    this.ensureOpen();
    const row = recordToInsert(record, new Date().toISOString());
    const { rowCount } = await this.pool.query(INSERT_SESSION, insertParams(row));
    if (rowCount === 0) throw new EventStoreError('SESSION_EXISTS', `Session ${row.id} already exists in the store.`);
  }

  async updateSession(info: SessionInfo): Promise<void> {
    this.ensureOpen();
    const { rowCount } = await this.pool.query(UPDATE_SESSION, updateParams(info, new Date().toISOString()));
    if (rowCount === 0) throw notFound(info.sessionId);
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    this.ensureOpen();
    const { rows } = await this.pool.query<SessionRow>(GET_SESSION, [sessionId]);
    return rows[0] ? rowToRecord(rows[0]) : undefined;
  }

  async listSessions(options: { limit: number; before?: string; ownerId?: string }): Promise<SessionPage> {
    this.ensureOpen();
    checkLimit(options.limit, 'The sessions');
    const cursor = options.before === undefined ? undefined : decodeCursor(options.before);
    // One row more than asked says whether a next page exists.
    const { rows } = await this.pool.query<SessionRow>(LIST_PAGE, [options.ownerId ?? null, cursor?.createdAt ?? null, cursor?.id ?? null, options.limit + 1]);
    return pageOfRows(rows, options.limit);
  }

  async listSessionsByStatus(status: SessionStatus): Promise<SessionRecord[]> {
    this.ensureOpen();
    const { rows } = await this.pool.query<SessionRow>(LIST_BY_STATUS, [status]);
    return rows.map(rowToRecord);
  }

  /** Events, snapshot and corrections go with the session row (ON DELETE CASCADE), in one statement. */
  async deleteSession(sessionId: string): Promise<void> {
    this.ensureOpen();
    await this.pool.query('DELETE FROM sessions WHERE id = $1', [sessionId]);
    this.retention?.forget(sessionId);
  }

  async appendBatch(batch: AppendBatch): Promise<void> {
    await this.appendFenced(batch, undefined);
  }

  /** `appendBatch`, refused with FENCED unless every session's stored epoch is `fence.epoch` (cluster mode). */
  async appendFenced({ events, frames, summaries = [], corrections = [] }: AppendBatch, fence: AppendFence | undefined): Promise<void> {
    this.ensureOpen();
    if (events.length === 0 && summaries.length === 0) return;
    const client = await this.pool.connect();
    let lastSeqs: Map<string, number>;
    try {
      lastSeqs = await appendInTransaction(client, events, frames, summaries, fence, corrections);
    } finally {
      client.release();
    }
    await this.retention?.afterAppend(lastSeqs);
  }

  /** Cluster mode: each session's part written only under its own epoch, in one transaction, answered per session (`appendSessionsInTransaction`). */
  async appendSessionsFenced(parts: readonly FencedSessionPart[]): Promise<Map<string, PartOutcome>> {
    this.ensureOpen();
    const client = await this.pool.connect();
    // The server may end this connection mid-transaction (a node stalled past the cluster's stall
    // limit): the next statement fails, and the client's own 'error' must not end the process.
    let dropped: Error | undefined;
    const onError = (error: Error): void => {
      dropped = error;
    };
    client.on('error', onError);
    let outcomes: Map<string, PartOutcome>;
    try {
      outcomes = await appendSessionsInTransaction(client, parts);
    } finally {
      client.off('error', onError);
      // A connection that failed is not given back to the pool.
      client.release(dropped);
    }
    const lastSeqs = new Map<string, number>();
    for (const [sessionId, outcome] of outcomes) if (outcome.status === 'written' && outcome.lastSeq > 0) lastSeqs.set(sessionId, outcome.lastSeq);
    await this.retention?.afterAppend(lastSeqs);
    return outcomes;
  }

  /** The pool, for the cluster's leases (their epochs and active runs are columns of `sessions`). */
  get connections(): pg.Pool {
    return this.pool;
  }

  async readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<SessionEvent[]> {
    return (await this.readEventFrames(sessionId, afterSeq, limit)).map((json) => JSON.parse(json) as SessionEvent);
  }

  async readEventFrames(sessionId: string, afterSeq: number, limit?: number): Promise<string[]> {
    this.ensureOpen();
    if (limit !== undefined) checkLimit(limit, 'The events');
    const { rows } = await this.pool.query<{ json: string }>(READ_EVENTS, [sessionId, afterSeq, NO_SEQ_LIMIT, limit ?? null]);
    return rows.map((row) => row.json);
  }

  async firstKeptSeq(sessionId: string): Promise<number | undefined> {
    this.ensureOpen();
    const { rows } = await this.pool.query<{ seq: number | null }>(FIRST_KEPT_SEQ, [sessionId]);
    return rows[0]?.seq ?? undefined;
  }

  async readSnapshot(sessionId: string): Promise<SessionSnapshotData | undefined> {
    this.ensureOpen();
    const { rows } = await this.pool.query<{ json: string }>(READ_SNAPSHOT, [sessionId]);
    return rows[0] ? (JSON.parse(rows[0].json) as SessionSnapshotData) : undefined;
  }

  /** Made by whichever node asks first (ON CONFLICT DO NOTHING), then read by every one: one key per database. */
  async sharingKey(): Promise<string> {
    this.ensureOpen();
    await this.pool.query('INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [SHARING_KEY, randomBytes(32).toString('base64url')]);
    const { rows } = await this.pool.query<{ value: string }>('SELECT value FROM secrets WHERE name = $1', [SHARING_KEY]);
    return rows[0]!.value;
  }

  /** The database's round trip and pool, for `/api/health` and `/api/metrics`; `ok: false` when it did not answer within 2 s. */
  async storeHealth(): Promise<StoreHealth> {
    const { pool } = this;
    const poolState = { max: this.poolMax, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
    if (this.closed) return { kind: 'postgres', ok: false, pool: poolState };
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS)));
    const answered = await Promise.race([pool.query('SELECT 1').then(() => true, () => false), timeout]);
    clearTimeout(timer);
    if (!answered) return { kind: 'postgres', ok: false, pool: poolState };
    return { kind: 'postgres', ok: true, latencyMs: Math.round((performance.now() - started) * 1000) / 1000, pool: poolState };
  }

  /** The schema version the database is at. */
  async schemaVersion(): Promise<number> {
    this.ensureOpen();
    return postgresSchemaVersion(this.pool);
  }

  /** Write a session copied from another store, idempotently (`pnpm interthought migrate`). */
  async importSession(copy: SessionLogCopy): Promise<void> {
    this.ensureOpen();
    const client = await this.pool.connect();
    try {
      await importSessionLog(client, copy);
    } finally {
      client.release();
    }
  }

  /** The session's last seq and kept event count, to verify a copy; undefined when absent. */
  async counts(sessionId: string): Promise<{ lastSeq: number; events: number } | undefined> {
    this.ensureOpen();
    return storedCounts(this.pool, sessionId);
  }

  /** Adopt another store's share-link key, so links made there open here. */
  async adoptSharingKey(value: string): Promise<void> {
    this.ensureOpen();
    await importSharingKey(this.pool, value);
  }

  /** End the pool (after in-flight queries). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private ensureOpen(): void {
    if (this.closed) throw new EventStoreError('STORE_CLOSED', `The event store ${this.target} is closed.`);
  }
}

/**
 * Connect to the database, migrate its schema (under an advisory lock, so several nodes may start
 * at once) and open the store. Throws `PostgresOpenError` naming the database when it cannot be used.
 */
export async function openPostgresEventStore(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
  const keep = options.retainEventsPerSession;
  if (keep !== undefined && (!Number.isSafeInteger(keep) || keep < 1)) {
    throw new PostgresOpenError('BAD_URL', maskedUrl(options.url), `retainEventsPerSession must be a positive integer, got ${String(keep)}.`);
  }
  const pool = await connectPool(options);
  try {
    await migrate(pool, options.url);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return new PostgresEventStore(pool, options.url, options.poolSize ?? DEFAULT_POOL_SIZE, keep);
}
