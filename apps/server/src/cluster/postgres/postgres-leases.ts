import type { Redis } from 'ioredis';
import type pg from 'pg';
import { EventStoreError } from '../../core/persistence/event-store.js';
import type { ClusterLeases } from '../cluster-log.js';
import { parseLeaseValue, type LeaseAttempt, type LeaseHolder, type SessionLease, type SessionLeasesOptions } from '../session-lease.js';
import { defineFloorLeaseScripts, leaseKeys, type FloorLeaseScripts } from './lease-scripts.js';

/** The raise of a lease just taken: strictly above what Postgres has, or somebody else is at this epoch or past it. */
const RAISE_TAKEN = 'UPDATE sessions SET epoch = $2 WHERE id = $1 AND epoch < $2';
/** A lease this node kept (it held it already): Postgres is at its epoch, or below it when the raise after taking it never ran. */
const RAISE_KEPT = 'UPDATE sessions SET epoch = $2 WHERE id = $1 AND epoch <= $2';

/**
 * Leases of a cluster whose log is in Postgres. The safety argument:
 *
 * - Postgres' `sessions.epoch` is the fence: every append of a cluster node carries its lease's
 *   epoch and is written only while the row still has it (`fenced-appends.ts`).
 * - A lease is taken in Redis (`<nodeId>:<epoch>`, PX TTL) with epoch = max(INCR(counter),
 *   floor + 1), the floor being the epoch Postgres had just before. Right after, before anything
 *   runs, the new owner raises Postgres' epoch to its own (`epoch < $2`): from that commit on, any
 *   older owner (a zombie waking from a pause) is refused `FENCED`. A raise that changes nothing
 *   means a node is at this epoch or past it already: the lease is given back and taken once more
 *   with the new floor. So epochs in Postgres only grow, and at most one node's appends land.
 * - Redis may lose every key (a flush, a restart without persistence): the counter restarts but
 *   the floor keeps epochs growing; a live owner re-creates its lease at its next renewal (SET NX
 *   of its own value) and checks that Postgres still has its epoch. That is safe whatever happens
 *   meanwhile: a node that takes the session over raises the epoch and fences the old owner.
 * - Whether a run has an owner is `sessions.run_owner`, which outlives Redis. The sweep counts a
 *   session orphaned only when its lease is missing on two sweeps at least one TTL apart, so live
 *   owners re-create their leases first and a flush does not interrupt running sessions.
 */
export class PostgresLeases implements ClusterLeases {
  readonly nodeId: string;
  readonly ttlMs: number;
  readonly #scripts: FloorLeaseScripts;
  /** The epoch of each lease this node took, to write `run_owner` only while Postgres still has it. */
  readonly #epochs = new Map<string, number>();
  /** When the sweep first saw each active session without a lease (ms, monotonic clock). */
  readonly #missingSince = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly pool: pg.Pool,
    options: SessionLeasesOptions,
  ) {
    if (options.nodeId === '') throw new RangeError('A node id must not be empty.');
    if (!Number.isSafeInteger(options.ttlMs) || options.ttlMs < 1) throw new RangeError(`ttlMs must be a positive integer, got ${String(options.ttlMs)}.`);
    this.nodeId = options.nodeId;
    this.ttlMs = options.ttlMs;
    this.#scripts = defineFloorLeaseScripts(redis);
  }

  /** Take or keep the lease, raising Postgres' epoch to it; outraced twice, say who holds it now. `SESSION_NOT_FOUND` for an unknown session. */
  async acquire(sessionId: string): Promise<LeaseAttempt> {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const result = await this.#attempt(sessionId);
      if (result !== 'outraced') return result;
    }
    const holder = await this.holder(sessionId);
    if (holder !== undefined && holder.nodeId !== this.nodeId) return { acquired: false, holder };
    throw new EventStoreError('FENCED', `Session ${sessionId} is being taken over by another node (its epoch in Postgres moved past this node's twice); try again.`);
  }

  async #attempt(sessionId: string): Promise<LeaseAttempt | 'outraced'> {
    const floor = await this.#storedEpoch(sessionId);
    if (floor === undefined) throw new EventStoreError('SESSION_NOT_FOUND', `Session ${sessionId} is not in the store.`);
    const [ours, value, taken] = await this.#scripts.acquire(sessionId, this.nodeId, this.ttlMs, floor);
    const holder = parseLeaseValue(value);
    if (ours === 0) return { acquired: false, holder };
    const { rowCount } = await this.pool.query(taken === 1 ? RAISE_TAKEN : RAISE_KEPT, [sessionId, holder.epoch]);
    if (rowCount === 0) {
      await this.#scripts.release(sessionId, value);
      return 'outraced';
    }
    this.#epochs.set(sessionId, holder.epoch);
    return { acquired: true, lease: { sessionId, nodeId: holder.nodeId, epoch: holder.epoch, value } };
  }

  /**
   * Extend the lease; a lease Redis lost is set again, and kept only while Postgres still has its
   * epoch (a node that took over meanwhile raised it: then the lease is given back, and false).
   */
  async renew(lease: SessionLease): Promise<boolean> {
    const renewed = await this.#scripts.renewOrRecreate(lease.sessionId, lease.value, this.ttlMs, lease.epoch);
    if (renewed === 1) return true;
    if (renewed === 2 && (await this.#storedEpoch(lease.sessionId)) === lease.epoch) return true;
    if (renewed === 2) await this.#scripts.release(lease.sessionId, lease.value);
    this.#epochs.delete(lease.sessionId);
    return false;
  }

  async release(lease: SessionLease): Promise<boolean> {
    this.#epochs.delete(lease.sessionId);
    return (await this.#scripts.release(lease.sessionId, lease.value)) === 1;
  }

  async holder(sessionId: string): Promise<LeaseHolder | undefined> {
    const value = await this.redis.get(leaseKeys(sessionId).lease);
    return value === null ? undefined : parseLeaseValue(value);
  }

  /** `run_owner` is this node, while Postgres has this node's epoch. */
  async markActive(sessionId: string): Promise<void> {
    await this.pool.query('UPDATE sessions SET run_owner = $2 WHERE id = $1 AND ($3::bigint IS NULL OR epoch = $3)', [sessionId, this.nodeId, this.#epochs.get(sessionId) ?? null]);
  }

  /** Cleared only while Postgres has this node's epoch: a node that lost the session never clears its new owner's run. */
  async markIdle(sessionId: string): Promise<void> {
    await this.pool.query('UPDATE sessions SET run_owner = NULL WHERE id = $1 AND ($2::bigint IS NULL OR epoch = $2)', [sessionId, this.#epochs.get(sessionId) ?? null]);
  }

  /** Sessions with a run owner whose lease was missing on an earlier sweep at least a TTL ago, and still is. */
  async orphans(): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>('SELECT id FROM sessions WHERE run_owner IS NOT NULL');
    const leases = await Promise.all(rows.map((row) => this.redis.exists(leaseKeys(row.id).lease)));
    const now = performance.now();
    const missing = new Set<string>();
    const orphans: string[] = [];
    rows.forEach((row, index) => {
      if (leases[index] !== 0) return;
      missing.add(row.id);
      const since = this.#missingSince.get(row.id);
      if (since === undefined) this.#missingSince.set(row.id, now);
      else if (now - since >= this.ttlMs) orphans.push(row.id);
    });
    for (const sessionId of this.#missingSince.keys()) if (!missing.has(sessionId)) this.#missingSince.delete(sessionId);
    for (const sessionId of orphans) this.#missingSince.delete(sessionId);
    return orphans;
  }

  async #storedEpoch(sessionId: string): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ epoch: number }>('SELECT epoch FROM sessions WHERE id = $1', [sessionId]);
    return rows[0]?.epoch;
  }
}
