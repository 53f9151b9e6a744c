import type { StoreHealth } from '@interthought/protocol';
import type { AppendBatch, EventStore } from '../core/persistence/event-store.js';
import type { StoredCorrections } from '../corrections/stored-corrections.js';
import type { LeaseAttempt, LeaseHolder, SessionLease } from './session-lease.js';

/**
 * Told of frames written to a session's log, `frames[0]` at seq `firstSeq`, exactly as stored and
 * published (a retried batch may repeat frames already written: the same bytes at the same seqs).
 */
export type WrittenListener = (sessionId: string, frames: readonly string[], firstSeq: number) => void;

/**
 * What the cluster layer needs of the log every node shares: an `EventStore` with its correction
 * index, fenced appends answered per session, and a hook for this node's own writes. Two
 * adapters: `RedisEventStore` (Redis-only cluster: the log in Redis streams, fenced and published
 * by one script) and `PostgresClusterLog` (the log in Postgres, fenced in the append's statement,
 * published on Redis after the commit). Either way every batch reaches the session's Redis
 * channel in the format of `batch-message.ts`, so the fan-out is the same.
 */
export interface ClusterLog extends EventStore {
  readonly corrections: StoredCorrections;
  /** Hand this node's written frames to `listener` as soon as they are durable (the owner's own viewers). */
  onWritten(listener: WrittenListener): void;
  /** From now on, append to `sessionId` only while its epoch is still `epoch` (the lease's). */
  fence(sessionId: string, epoch: number): void;
  /** Append to `sessionId` unfenced again (this node no longer owns it). */
  unfence(sessionId: string): void;
  /** The epoch appends to `sessionId` carry; undefined when unfenced. */
  epochOf(sessionId: string): number | undefined;
  /** `appendBatch` answered per session: a fenced session is refused `FENCED`, the others are written. */
  appendSessions(batch: AppendBatch): Promise<Map<string, PromiseSettledResult<void>>>;
  /** The database's round trip and pool, when the log is in one (`/api/health`, `/api/metrics`). */
  storeHealth?(): Promise<StoreHealth>;
}

/**
 * The lease side of ownership: who runs each session, under which fencing epoch, and which runs
 * lost their owner. `SessionLeases` (Redis-only: the epoch in the session's meta hash) and
 * `PostgresLeases` (the epoch fenced in Postgres, the lease in Redis) implement it.
 */
export interface ClusterLeases {
  readonly nodeId: string;
  readonly ttlMs: number;
  /** Take the lease if nobody holds it, keep it if this node does; else say who holds it. `SESSION_NOT_FOUND` for an unknown session. */
  acquire(sessionId: string): Promise<LeaseAttempt>;
  /** Extend the lease for another TTL; false when it is no longer ours. */
  renew(lease: SessionLease): Promise<boolean>;
  /** Give the lease up; false when it was no longer ours. */
  release(lease: SessionLease): Promise<boolean>;
  /** Who holds the session's lease now; undefined when nobody does. */
  holder(sessionId: string): Promise<LeaseHolder | undefined>;
  /** The session's run has an owner (this node): if the owner dies, the sweep takes it over. */
  markActive(sessionId: string): Promise<void>;
  /** The session's run ended: nothing to take over. */
  markIdle(sessionId: string): Promise<void>;
  /** Sessions whose run has an owner that is gone. */
  orphans(): Promise<string[]>;
}

/**
 * What both logs keep alike: the epoch this node fences each session it owns with, and the
 * listener of its own writes. A log extends it and calls `written` once a part is durable.
 */
export abstract class FencedWrites {
  readonly #epochs = new Map<string, number>();
  #onWritten: WrittenListener | undefined;

  /**
   * Hand every session's frames this log wrote to `listener`, as soon as they are durable (before
   * any trim): the node that writes a session delivers to its own viewers from here, without
   * waiting for its own publish to come back over the session channel.
   */
  onWritten(listener: WrittenListener): void {
    this.#onWritten = listener;
  }

  /** From now on, append to `sessionId` only while its epoch is still `epoch` (the lease's). */
  fence(sessionId: string, epoch: number): void {
    this.#epochs.set(sessionId, epoch);
  }

  /** Append to `sessionId` unfenced again (this node no longer owns it). */
  unfence(sessionId: string): void {
    this.#epochs.delete(sessionId);
  }

  /** The epoch appends to `sessionId` carry; undefined when unfenced. */
  epochOf(sessionId: string): number | undefined {
    return this.#epochs.get(sessionId);
  }

  /** Tell the listener; its failure is its own: the append is written all the same. */
  protected written(sessionId: string, frames: readonly string[], firstSeq: number): void {
    try {
      this.#onWritten?.(sessionId, frames, firstSeq);
    } catch {
      // Nothing to undo: the frames are durable.
    }
  }
}
