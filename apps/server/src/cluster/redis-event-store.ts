import { randomBytes, randomUUID } from 'node:crypto';
import type { SessionEvent, SessionInfo, SessionOptions, SessionSnapshotData, SessionStatus } from '@interthought/protocol';
import type { Redis } from 'ioredis';
import type { AppendBatch, EventStore, SessionPage, SessionRecord } from '../core/persistence/event-store.js';
import { badListCursor } from '../core/session-error.js';
import { EventStoreError } from '../core/persistence/event-store.js';
import { connectRedis, quitRedis, type RedisTarget } from './redis-connection.js';
import { ACTIVE_KEY, BY_STATUS_KEY, CORRECTIONS_KEY, SESSIONS_KEY, SHARING_KEY, listEntry, ownerSessionsKey, sessionCorrectionsKey, sessionIdOfEntry, sessionKeys, statusRange } from './redis-keys.js';
import { DEFAULT_RETAINED_EVENTS, RedisRetention, type StreamEntries } from './redis-retention.js';
import { defineClusterScripts, type AppendCall, type AppendReply, type ClusterScripts } from './redis-scripts.js';
import { toStoreError } from './redis-store-errors.js';
import { splitBySession, type SessionAppend } from './session-appends.js';
import { RedisCorrections, correctionTriple } from './redis-corrections.js';
import type { IndexedCorrection } from '../corrections/correction-index.js';
import { FencedWrites, type ClusterLog } from './cluster-log.js';

export interface RedisEventStoreOptions {
  /**
   * Keep about this many newest events per session (about a quarter more between trims); older
   * ones are folded into the session's snapshot. Default `DEFAULT_RETAINED_EVENTS`, since logs
   * live in Redis' memory; `'all'` keeps every event.
   */
  retainEventsPerSession?: number | 'all';
}

function checkLimit(limit: number, what: string): void {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new EventStoreError('BAD_LIMIT', `${what} limit must be a non-negative integer, got ${String(limit)}.`);
  }
}

/** A batch's corrections of each session. */
function correctionsBySession(corrections: readonly IndexedCorrection[]): Map<string, IndexedCorrection[]> {
  const bySession = new Map<string, IndexedCorrection[]>();
  for (const correction of corrections) {
    const { sessionId } = correction.record;
    bySession.set(sessionId, [...(bySession.get(sessionId) ?? []), correction]);
  }
  return bySession;
}

/** Opaque to callers; base64url so it travels in a query string as is. */
function encodeCursor(entry: string): string {
  return Buffer.from(entry, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const entry = Buffer.from(cursor, 'base64url').toString('utf8');
  if (sessionIdOfEntry(entry) === undefined || encodeCursor(entry) !== cursor) {
    throw badListCursor(cursor);
  }
  return entry;
}

export type { WrittenListener } from './cluster-log.js';

/** The owner's list a session is on, as the create and delete scripts' optional last key. */
function ownerListOf(info: SessionInfo): [] | [ownerSessions: string] {
  return info.owner === undefined ? [] : [ownerSessionsKey(info.owner.id)];
}

/**
 * The `EventStore` of cluster mode, over one ioredis client (which it owns: `close()` quits it).
 * Layout and scripts: `redis-keys.ts`, `redis-scripts.ts`. Each session's append is one script
 * call that checks the fencing epoch and the seqs, writes the events to the session's stream and
 * publishes them on its channel, atomically; with `appendonly yes` and `appendfsync always` the
 * reply comes after the fsync, so an append is durable when its promise resolves.
 *
 * Fencing: the cluster layer tells the store under which epoch this node owns a session
 * (`fence`); appends then carry it, and the script refuses them with `FENCED` once another node
 * took the session over, so a paused "zombie" owner can never write after its lease is gone.
 */
export class RedisEventStore extends FencedWrites implements ClusterLog {
  readonly #redis: Redis;
  readonly #scripts: ClusterScripts;
  readonly #retention: RedisRetention | undefined;
  /** The epoch under which this node owns each session it writes fenced. */
  #closed = false;
  /** The index of corrections (PROTOCOL.md §26), beside each session's keys. */
  readonly corrections: RedisCorrections;

  constructor(redis: Redis, options: RedisEventStoreOptions = {}) {
    super();
    const keep = options.retainEventsPerSession ?? DEFAULT_RETAINED_EVENTS;
    if (keep !== 'all' && (!Number.isSafeInteger(keep) || keep < 1)) {
      throw new RangeError(`retainEventsPerSession must be a positive integer or 'all', got ${String(keep)}.`);
    }
    this.#redis = redis;
    this.#scripts = defineClusterScripts(redis);
    this.corrections = new RedisCorrections(redis);
    this.#retention = keep === 'all' ? undefined : new RedisRetention(redis, this.#scripts, keep);
  }

  /** The client the store writes with; the cluster layer's leases use it too (same connection, same order). */
  get redis(): Redis {
    return this.#redis;
  }

  /** The scripts defined on `redis`, for the lease primitives. */
  get scripts(): ClusterScripts {
    return this.#scripts;
  }

  async createSession(record: SessionRecord): Promise<void> {
    this.#ensureOpen();
    const { info } = record;
    const keys = sessionKeys(info.sessionId);
    const entry = listEntry(info.createdAt, info.sessionId);
    const args = [JSON.stringify(info), JSON.stringify(record.options ?? {}), record.lastSeq, info.status, entry] as const;
    await this.#refusable(info.sessionId, this.#scripts.createSession([keys.meta, SESSIONS_KEY, BY_STATUS_KEY, ...ownerListOf(info)], [...args]));
  }

  async updateSession(info: SessionInfo): Promise<void> {
    this.#ensureOpen();
    const keys = sessionKeys(info.sessionId);
    await this.#refusable(info.sessionId, this.#scripts.updateSession([keys.meta, BY_STATUS_KEY], [JSON.stringify(info), info.status]));
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    this.#ensureOpen();
    const [info, options, lastSeq] = await this.#redis.hmget(sessionKeys(sessionId).meta, 'info', 'options', 'lastSeq');
    if (info == null) return undefined;
    return { info: JSON.parse(info) as SessionInfo, options: JSON.parse(options ?? '{}') as SessionOptions, lastSeq: Number(lastSeq ?? 0) };
  }

  /** Every session with this status, oldest first (by createdAt, then id): one range of `it:by-status`. */
  async listSessionsByStatus(status: SessionStatus): Promise<SessionRecord[]> {
    this.#ensureOpen();
    const { min, max } = statusRange(status);
    const members = await this.#redis.zrangebylex(BY_STATUS_KEY, min, max);
    const ids = members.map((member) => member.slice(status.length + 1)).map(sessionIdOfEntry);
    const records = await Promise.all(ids.map((id) => (id === undefined ? undefined : this.getSession(id))));
    // A session deleted or changed between the range and its read is left out.
    return records.filter((record): record is SessionRecord => record !== undefined && record.info.status === status);
  }

  /** Newest first, by (createdAt, sessionId): a cursor stays valid while sessions come and go. */
  async listSessions(options: { limit: number; before?: string; ownerId?: string }): Promise<SessionPage> {
    this.#ensureOpen();
    checkLimit(options.limit, 'The sessions');
    const max = options.before === undefined ? '+' : `(${decodeCursor(options.before)}`;
    const list = options.ownerId === undefined ? SESSIONS_KEY : ownerSessionsKey(options.ownerId);
    // One entry more than asked says whether a next page exists.
    const entries = await this.#redis.zrange(list, max, '-', 'BYLEX', 'REV', 'LIMIT', 0, options.limit + 1);
    const page = entries.slice(0, options.limit);
    const infos = await Promise.all(page.map((entry) => this.#redis.hget(sessionKeys(sessionIdOfEntry(entry) ?? '').meta, 'info')));
    const sessions = infos.filter((info): info is string => info !== null).map((info) => JSON.parse(info) as SessionInfo);
    const last = page[page.length - 1];
    // The cursor is the entry itself, so it holds even when that session is deleted meanwhile.
    return entries.length > options.limit && last !== undefined ? { sessions, nextCursor: encodeCursor(last) } : { sessions };
  }

  /** Remove the session's keys and its list entries together. Unknown ids are ignored. */
  async deleteSession(sessionId: string): Promise<void> {
    this.#ensureOpen();
    const keys = sessionKeys(sessionId);
    // A session's owner never changes: read before the script, which takes the session off every list it is on.
    const info = await this.#redis.hget(keys.meta, 'info');
    const ownerList: [] | [string] = info == null ? [] : ownerListOf(JSON.parse(info) as SessionInfo);
    // One step: the session's corrections leave the index with its keys.
    const orderKeys = await this.corrections.orderKeysOf(sessionId);
    await this.#scripts.deleteSession(
      [keys.meta, keys.log, keys.snap, keys.lease, SESSIONS_KEY, BY_STATUS_KEY, ACTIVE_KEY, sessionCorrectionsKey(sessionId), CORRECTIONS_KEY, ...ownerList],
      [sessionId, ...orderKeys],
    );
    this.#retention?.forget(sessionId);
    this.unfence(sessionId);
  }

  /**
   * One append script call for the batch (`appendEach`), atomic for each session in it. A batch of
   * several sessions is not atomic across them, and need not be: each session's log, seqs and
   * summary are independent of the others', and the core's batches are one outbox's group commit
   * of whatever sessions queued events, not a unit any reader sees. A batch the core retries after
   * a partial failure is accepted for the sessions already written (see the append script), so the
   * retry writes exactly the rest.
   */
  async appendBatch(batch: AppendBatch): Promise<void> {
    const bySession = await this.appendSessions(batch);
    const sessionIds = [...bySession.keys()];
    const results = [...bySession.values()];
    const failure = results.find((result) => result.status === 'rejected');
    if (failure === undefined) return;
    const written = sessionIds.filter((_, index) => results[index]?.status === 'fulfilled');
    if (written.length === 0 || !(failure.reason instanceof EventStoreError)) throw failure.reason;
    throw new EventStoreError(
      failure.reason.code,
      `${failure.reason.message} The batch's events of ${written.join(', ')} were written; retrying the whole batch writes only what is missing.`,
    );
  }

  /**
   * `appendBatch`, answered per session: each session's part is written or refused on its own
   * (typed `EventStoreError`s), all in one script call. A cluster node's appends use it, so that
   * a session another node took over is dropped while the rest of the batch is written.
   */
  async appendSessions(batch: AppendBatch): Promise<Map<string, PromiseSettledResult<void>>> {
    this.#ensureOpen();
    const appends = [...splitBySession(batch).values()];
    const results = new Map<string, PromiseSettledResult<void>>();
    if (appends.length === 0) return results;
    // One id for the whole call: ioredis resends an unanswered script after a reconnect, and the
    // script recognises its own last batch by it.
    const batchId = randomUUID();
    const corrections = correctionsBySession(batch.corrections ?? []);
    const replies = await this.#scripts.appendEach(appends.map((append) => this.#appendCall(append, batchId, corrections.get(append.sessionId) ?? [])));
    const settled = await Promise.allSettled(appends.map((append, index) => this.#afterAppend(append, replies[index]!)));
    appends.forEach((append, index) => results.set(append.sessionId, settled[index]!));
    return results;
  }

  async readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<SessionEvent[]> {
    const frames = await this.readEventFrames(sessionId, afterSeq, limit);
    return frames.map((frame) => JSON.parse(frame) as SessionEvent);
  }

  /** The stored frames after `afterSeq`: one XRANGE from the exclusive id `(afterSeq-0`. */
  async readEventFrames(sessionId: string, afterSeq: number, limit?: number): Promise<string[]> {
    this.#ensureOpen();
    if (limit !== undefined) checkLimit(limit, 'The events');
    if (limit === 0) return [];
    await this.#trimmed(sessionId);
    const start = afterSeq < 0 ? '-' : `(${Math.floor(afterSeq)}-0`;
    const log = sessionKeys(sessionId).log;
    const entries = (limit === undefined ? await this.#redis.xrange(log, start, '+') : await this.#redis.xrange(log, start, '+', 'COUNT', limit)) as StreamEntries;
    return entries.map(([, fields]) => fields[1] ?? '');
  }

  async firstKeptSeq(sessionId: string): Promise<number | undefined> {
    this.#ensureOpen();
    await this.#trimmed(sessionId);
    const [first] = (await this.#redis.xrange(sessionKeys(sessionId).log, '-', '+', 'COUNT', 1)) as StreamEntries;
    return first === undefined ? undefined : Number.parseInt(first[0], 10);
  }

  async readSnapshot(sessionId: string): Promise<SessionSnapshotData | undefined> {
    this.#ensureOpen();
    await this.#trimmed(sessionId);
    const snapshot = await this.#redis.get(sessionKeys(sessionId).snap);
    return snapshot === null ? undefined : (JSON.parse(snapshot) as SessionSnapshotData);
  }

  /** Made by whichever node asks first (SET NX), then read by every one. */
  async sharingKey(): Promise<string> {
    this.#ensureOpen();
    await this.#redis.set(SHARING_KEY, randomBytes(32).toString('base64url'), 'NX');
    return (await this.#redis.get(SHARING_KEY))!;
  }

  /** Quit the client. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.settled();
    await quitRedis(this.#redis);
  }

  /** One session's part of the append script call; its corrections go into the index in the same step. */
  #appendCall(append: SessionAppend, batchId: string, corrections: readonly IndexedCorrection[]): AppendCall {
    const { sessionId, summary } = append;
    const keys = sessionKeys(sessionId);
    const epoch = this.epochOf(sessionId);
    return {
      keys: [keys.meta, keys.log, BY_STATUS_KEY, sessionCorrectionsKey(sessionId), CORRECTIONS_KEY],
      args: [
        epoch === undefined ? '' : String(epoch),
        Math.max(0, append.firstSeq - 1),
        batchId,
        summary === undefined ? '' : JSON.stringify(summary),
        summary?.status ?? '',
        keys.channel,
        corrections.length,
        ...corrections.flatMap(correctionTriple),
        ...append.frames,
      ],
    };
  }

  /** One session's part is written (or refused, as a typed error): tell this node's feeds, then trim. */
  async #afterAppend(append: SessionAppend, reply: PromiseSettledResult<AppendReply>): Promise<void> {
    const { sessionId } = append;
    if (reply.status === 'rejected') throw toStoreError(reply.reason, sessionId);
    const [lastSeq, firstSeq] = reply.value;
    if (append.frames.length === 0) return;
    this.written(sessionId, append.frames, append.firstSeq);
    this.#retention?.afterAppend(sessionId, firstSeq, lastSeq);
  }

  /**
   * Retention trims behind the appends (see `RedisRetention`); a read of a session waits for this
   * node's trim of it under way, so what a node's own appends did, trims included, is what it
   * reads next (as with the SQLite store, whose trim is part of the append).
   */
  #trimmed(sessionId: string): Promise<void> {
    return this.#retention?.settled(sessionId) ?? Promise.resolve();
  }

  /** Resolves once every trim under way has landed (tests, and `close`). */
  settled(): Promise<void> {
    return this.#retention?.settled() ?? Promise.resolve();
  }

  /** A script call whose refusals become typed `EventStoreError`s naming the session. */
  async #refusable<T>(sessionId: string, call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      throw toStoreError(error, sessionId);
    }
  }

  #ensureOpen(): void {
    if (this.#closed) throw new EventStoreError('STORE_CLOSED', 'The Redis event store is closed.');
  }
}

/** Connect to Redis at `target` and open the store on that connection (fails at once when Redis is unreachable). */
export async function connectRedisEventStore(target: RedisTarget, options: RedisEventStoreOptions = {}): Promise<RedisEventStore> {
  return new RedisEventStore(await connectRedis(target, { connectionName: 'interthought-store' }), options);
}
