import type { Redis } from 'ioredis';
import { ACTIVE_KEY, sessionKeys } from './redis-keys.js';
import type { ClusterScripts } from './redis-scripts.js';
import { toStoreError } from './redis-store-errors.js';
import type { ClusterLeases } from './cluster-log.js';

/** A session's lease held by this node: `value` is what `it:{S}:lease` holds, `<nodeId>:<epoch>`. */
export interface SessionLease {
  sessionId: string;
  nodeId: string;
  /** The fencing token: pass it to `ClusterLog.fence`. */
  epoch: number;
  value: string;
}

/** Who holds a lease, from its value. */
export interface LeaseHolder {
  nodeId: string;
  epoch: number;
}

export type LeaseAttempt = { acquired: true; lease: SessionLease } | { acquired: false; holder: LeaseHolder };

export interface SessionLeasesOptions {
  nodeId: string;
  /** How long a lease lives without a renewal; a dead owner's sessions are taken over after it. */
  ttlMs: number;
}

/** `<nodeId>:<epoch>`; a node id may itself hold colons, the epoch follows the last one. */
export function parseLeaseValue(value: string): LeaseHolder {
  const at = value.lastIndexOf(':');
  return { nodeId: value.slice(0, at), epoch: Number(value.slice(at + 1)) };
}

/**
 * Session ownership for the cluster layer. A lease is `it:{S}:lease` = `<nodeId>:<epoch>` with a
 * PX TTL; taking a missing one increments the session's epoch in its meta hash in the same script,
 * so every owner has a larger token than the one before, and the store's fenced appends refuse the
 * older ones. A lease alone is not safe (a paused owner may wake after it expired): the epoch is.
 *
 * `it:active` lists the sessions whose run has an owner; a session there without a lease lost
 * its owner, and the takeover sweep finds it with `orphans()`.
 */
export class SessionLeases implements ClusterLeases {
  readonly nodeId: string;
  readonly ttlMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly scripts: ClusterScripts,
    options: SessionLeasesOptions,
  ) {
    if (options.nodeId === '') throw new RangeError('A node id must not be empty.');
    if (!Number.isSafeInteger(options.ttlMs) || options.ttlMs < 1) throw new RangeError(`ttlMs must be a positive integer, got ${String(options.ttlMs)}.`);
    this.nodeId = options.nodeId;
    this.ttlMs = options.ttlMs;
  }

  /**
   * Take the session's lease if nobody holds it (with the next epoch), or keep it if this node
   * already does (TTL extended); otherwise say who holds it. `SESSION_NOT_FOUND` for an unknown
   * session.
   */
  async acquire(sessionId: string): Promise<LeaseAttempt> {
    const keys = sessionKeys(sessionId);
    let reply: [0 | 1, string];
    try {
      reply = await this.scripts.acquireLease([keys.lease, keys.meta], [this.nodeId, this.ttlMs]);
    } catch (error) {
      throw toStoreError(error, sessionId);
    }
    const [ours, value] = reply;
    const holder = parseLeaseValue(value);
    return ours === 1 ? { acquired: true, lease: { sessionId, nodeId: holder.nodeId, epoch: holder.epoch, value } } : { acquired: false, holder };
  }

  /** Extend the lease for another TTL; false when it is no longer ours (expired, or taken over). */
  async renew(lease: SessionLease): Promise<boolean> {
    return (await this.scripts.renewLease([sessionKeys(lease.sessionId).lease], [lease.value, this.ttlMs])) === 1;
  }

  /** Give the lease up; false when it was no longer ours (then it is left to its holder). */
  async release(lease: SessionLease): Promise<boolean> {
    return (await this.scripts.releaseLease([sessionKeys(lease.sessionId).lease], [lease.value])) === 1;
  }

  /** Who holds the session's lease now; undefined when nobody does. */
  async holder(sessionId: string): Promise<LeaseHolder | undefined> {
    const value = await this.redis.get(sessionKeys(sessionId).lease);
    return value === null ? undefined : parseLeaseValue(value);
  }

  /** The session's run has an owner (this node): if the owner dies, the sweep takes it over. */
  async markActive(sessionId: string): Promise<void> {
    await this.redis.sadd(ACTIVE_KEY, sessionId);
  }

  /** The session's run ended (completed, paused, interrupted …): nothing to take over. Clear it before releasing the lease. */
  async markIdle(sessionId: string): Promise<void> {
    await this.redis.srem(ACTIVE_KEY, sessionId);
  }

  /** Sessions in `it:active` whose lease is missing: their owner died or stopped renewing. */
  async orphans(): Promise<string[]> {
    const active = await this.redis.smembers(ACTIVE_KEY);
    const leases = await Promise.all(active.map((sessionId) => this.redis.exists(sessionKeys(sessionId).lease)));
    return active.filter((_, index) => leases[index] === 0);
  }
}
