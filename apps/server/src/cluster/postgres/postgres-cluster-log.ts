import type { SessionEvent, SessionInfo, SessionSnapshotData, SessionStatus, StoreHealth } from '@interthought/protocol';
import type { Redis } from 'ioredis';
import type { AppendBatch, SessionPage, SessionRecord } from '../../core/persistence/event-store.js';
import type { IndexedCorrection } from '../../corrections/correction-index.js';
import type { StoredCorrections } from '../../corrections/stored-corrections.js';
import type { PostgresEventStore } from '../../store/postgres/postgres-event-store.js';
import type { FencedSessionPart, PartOutcome } from '../../store/postgres/fenced-appends.js';
import { encodeBatchMessage } from '../batch-message.js';
import { FencedWrites, type ClusterLog } from '../cluster-log.js';
import { quitRedis } from '../redis-connection.js';
import { sessionKeys } from '../redis-keys.js';
import { splitBySession } from '../session-appends.js';
import { leaseKeys } from './lease-scripts.js';

/** The items of `list` grouped by the session `sessionOf` names, in order. */
function bySession<T>(list: readonly T[], sessionOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of list) {
    const sessionId = sessionOf(item);
    let group = groups.get(sessionId);
    if (group === undefined) groups.set(sessionId, (group = []));
    group.push(item);
  }
  return groups;
}

/**
 * The cluster's log in Postgres (`ClusterLog`): sessions, events and snapshots in the database
 * every node shares, Redis only carrying each batch to the other nodes. A node's batch is one
 * transaction, each session's part fenced by the epoch of this node's lease
 * (`appendSessionsFenced`); after the commit the frames go to this node's feeds (`onWritten`),
 * then each session's batch is published on its channel in the append script's format, so the
 * followers' `SessionChannel`/`RedisFanout` are the Redis-only mode's. A publish that fails is
 * reported and never fails the append: the events are durable, and followers fill the gap from
 * Postgres at the next batch or when they subscribe again. Owns the store and the Redis client.
 */
export class PostgresClusterLog extends FencedWrites implements ClusterLog {
  readonly corrections: StoredCorrections;

  constructor(
    readonly store: PostgresEventStore,
    /** The node's Redis connection: leases, the bus and the batches' publishes use it. */
    readonly redis: Redis,
    private readonly report: (context: string, error: unknown) => void,
  ) {
    super();
    // The database's own index: written in each append's transaction, shared by every node.
    this.corrections = store.corrections;
  }

  /** As `RedisEventStore.appendBatch`: per-session outcomes folded into one answer (see `appendSessions`). */
  async appendBatch(batch: AppendBatch): Promise<void> {
    const results = await this.appendSessions(batch);
    const failure = [...results.values()].find((result) => result.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
  }

  /**
   * One transaction for the batch; each session's part written only while Postgres has the epoch
   * this node fences it with, else refused `FENCED` while the others are written. A part already
   * written (a retry after a lost commit answer) counts as written.
   */
  async appendSessions(batch: AppendBatch): Promise<Map<string, PromiseSettledResult<void>>> {
    const appends = [...splitBySession(batch).values()];
    const results = new Map<string, PromiseSettledResult<void>>();
    if (appends.length === 0) return results;
    const events = bySession(batch.events, (event) => event.sessionId);
    const corrections = bySession(batch.corrections ?? [], (correction: IndexedCorrection) => correction.record.sessionId);
    const parts: FencedSessionPart[] = appends.map((append) => ({
      ...append,
      types: (events.get(append.sessionId) ?? []).map((event) => event.type),
      corrections: corrections.get(append.sessionId) ?? [],
      epoch: this.epochOf(append.sessionId),
    }));
    let outcomes: Map<string, PartOutcome>;
    try {
      outcomes = await this.store.appendSessionsFenced(parts);
    } catch (error) {
      for (const part of parts) results.set(part.sessionId, { status: 'rejected', reason: error });
      return results;
    }
    for (const part of parts) if (outcomes.get(part.sessionId)?.status === 'written') this.#announce(part);
    for (const part of parts) {
      const outcome = outcomes.get(part.sessionId);
      results.set(part.sessionId, outcome?.status === 'written' ? { status: 'fulfilled', value: undefined } : { status: 'rejected', reason: outcome?.error ?? new Error(`No outcome for session ${part.sessionId}.`) });
    }
    return results;
  }

  /** This node's feeds first (no round trip), then every node's followers over the session's channel. */
  #announce(part: FencedSessionPart): void {
    if (part.frames.length === 0) return;
    this.written(part.sessionId, part.frames, part.firstSeq);
    // Not awaited: one connection keeps a session's publishes in order, and the append is durable already.
    this.redis.spublish(sessionKeys(part.sessionId).channel, encodeBatchMessage(part.firstSeq, part.frames)).catch((error: unknown) => {
      this.report(`publishing a batch of session ${part.sessionId} failed (followers read it from Postgres)`, error);
    });
  }

  createSession(record: SessionRecord): Promise<void> {
    return this.store.createSession(record);
  }
  updateSession(info: SessionInfo): Promise<void> {
    return this.store.updateSession(info);
  }
  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.store.getSession(sessionId);
  }
  listSessionsByStatus(status: SessionStatus): Promise<SessionRecord[]> {
    return this.store.listSessionsByStatus(status);
  }
  listSessions(options: { limit: number; before?: string; ownerId?: string }): Promise<SessionPage> {
    return this.store.listSessions(options);
  }

  /** The row (events, snapshot and corrections with it), then its lease keys in Redis. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.store.deleteSession(sessionId);
    const keys = leaseKeys(sessionId);
    await this.redis.del(keys.lease, keys.counter).catch((error: unknown) => this.report(`removing the lease of deleted session ${sessionId} failed`, error));
    this.unfence(sessionId);
  }

  readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<SessionEvent[]> {
    return this.store.readEvents(sessionId, afterSeq, limit);
  }
  readEventFrames(sessionId: string, afterSeq: number, limit?: number): Promise<string[]> {
    return this.store.readEventFrames(sessionId, afterSeq, limit);
  }
  firstKeptSeq(sessionId: string): Promise<number | undefined> {
    return this.store.firstKeptSeq(sessionId);
  }
  readSnapshot(sessionId: string): Promise<SessionSnapshotData | undefined> {
    return this.store.readSnapshot(sessionId);
  }
  sharingKey(): Promise<string> {
    return this.store.sharingKey();
  }
  storeHealth(): Promise<StoreHealth> {
    return this.store.storeHealth();
  }

  /** The pool, then the Redis client. Idempotent. */
  async close(): Promise<void> {
    await this.store.close();
    await quitRedis(this.redis);
  }
}
