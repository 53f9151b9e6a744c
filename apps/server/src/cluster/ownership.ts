import type { ClusterLeases, ClusterLog } from './cluster-log.js';
import type { LeaseHolder, SessionLease } from './session-lease.js';

/** Where a session's commands run: here (this node holds its lease), or on the node that does. */
export type Claim = { here: true } | { here: false; holder: LeaseHolder };

/** Counters for health and metrics. */
export interface OwnershipStats {
  ownedSessions: number;
  leaseRenewals: number;
  takeovers: number;
  lostSessions: number;
}

/** What ownership tells the core once it starts, as typed hooks. */
export interface OwnershipEvents {
  /** This node lost a session it held (its lease expired and another node took it, or Redis said so): stop running it. */
  lost(sessionId: string): void;
  /** The sweep found a session whose owner died: this node should take it over. */
  orphaned(sessionId: string): void;
}

/** Until `start`, nothing is held long enough to be lost, and no sweep runs. */
const NOT_STARTED: OwnershipEvents = { lost: () => undefined, orphaned: () => undefined };

/**
 * The sessions this node owns, by lease. A lease is renewed every third of its TTL; a lease that
 * is not ours any more means another node took the session over, so this node stops running it
 * at once (self-fencing). The store's epoch check makes a node that wakes from a long pause
 * harmless even before it notices: its appends are refused `FENCED`.
 *
 * The sweep looks every `sweepMs` for sessions whose run has an owner but no lease (their owner
 * died: `ClusterLeases.orphans`) and reports them, so one node takes each over within the lease
 * TTL plus one sweep (twice the TTL when the log is in Postgres, see `PostgresLeases`).
 */
export class Ownership {
  readonly #held = new Map<string, SessionLease>();
  /** When each held lease was last taken or renewed (ms, monotonic clock). */
  readonly #renewedAt = new Map<string, number>();
  /** Claims in progress, so two requests for one session take its lease once. */
  readonly #claiming = new Map<string, Promise<Claim>>();
  /** Releases in progress: a claim made meanwhile waits for the lease to be gone, then takes it anew (or learns who did). */
  readonly #releasing = new Map<string, Promise<void>>();
  #renewTimer: NodeJS.Timeout | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  #renewals = 0;
  #takeovers = 0;
  #lost = 0;

  constructor(
    private readonly leases: ClusterLeases,
    private readonly store: Pick<ClusterLog, 'fence' | 'unfence'>,
    private readonly report: (context: string, error: unknown) => void,
    private readonly sweepMs: number,
  ) {}

  #events: OwnershipEvents = NOT_STARTED;

  get nodeId(): string {
    return this.leases.nodeId;
  }

  get stats(): OwnershipStats {
    return { ownedSessions: this.#held.size, leaseRenewals: this.#renewals, takeovers: this.#takeovers, lostSessions: this.#lost };
  }

  holds(sessionId: string): boolean {
    return this.#held.has(sessionId);
  }

  /** Take the lease when nobody holds it; say who does otherwise. `SESSION_NOT_FOUND` (an EventStoreError) for an unknown session. */
  claim(sessionId: string, { takeover = false } = {}): Promise<Claim> {
    let claiming = this.#claiming.get(sessionId);
    if (claiming === undefined) {
      claiming = this.#claim(sessionId, takeover).finally(() => this.#claiming.delete(sessionId));
      this.#claiming.set(sessionId, claiming);
    }
    return claiming;
  }

  /**
   * A lease this node holds is renewed, not trusted from memory: a node stalled past its TTL
   * (a pause, a swap storm) learns here, before it acts on a command, that another node took the
   * session over, instead of running the command on a stale copy whose writes are then fenced off
   * and whose requester never hears back.
   */
  async #claim(sessionId: string, takeover: boolean): Promise<Claim> {
    await this.#releasing.get(sessionId);
    const held = this.#held.get(sessionId);
    if (held !== undefined && (await this.#renew(held))) return { here: true };
    return this.#acquire(sessionId, takeover);
  }

  async #acquire(sessionId: string, takeover: boolean): Promise<Claim> {
    const attempt = await this.leases.acquire(sessionId);
    if (!attempt.acquired) return { here: false, holder: attempt.holder };
    this.#held.set(sessionId, attempt.lease);
    this.#renewedAt.set(sessionId, performance.now());
    this.store.fence(sessionId, attempt.lease.epoch);
    // Whatever this node does with the session now, if it dies holding it the sweep finds it.
    await this.leases.markActive(sessionId);
    if (takeover) this.#takeovers += 1;
    return { here: true };
  }

  /** Who holds the session's lease now (another node, or this one); undefined when nobody does. */
  holder(sessionId: string): Promise<LeaseHolder | undefined> {
    return this.leases.holder(sessionId);
  }

  /** Let the session go: nothing of it runs here any more (it finished, or was deleted). */
  release(sessionId: string): Promise<void> {
    const lease = this.#held.get(sessionId);
    if (lease === undefined) return this.#releasing.get(sessionId) ?? Promise.resolve();
    this.#forget(sessionId);
    const releasing = (async () => {
      await this.leases.markIdle(sessionId);
      await this.leases.release(lease);
    })().finally(() => this.#releasing.delete(sessionId));
    this.#releasing.set(sessionId, releasing);
    return releasing;
  }

  /** Start renewing held leases and sweeping for sessions whose owner died; `events` hears of both. */
  start(events: OwnershipEvents): void {
    this.#events = events;
    const renewEvery = Math.max(50, Math.floor(this.leases.ttlMs / 3));
    this.#renewTimer = setInterval(() => void this.#renewAll(), renewEvery);
    this.#sweepTimer = setInterval(() => void this.#sweep(), this.sweepMs);
    this.#renewTimer.unref();
    this.#sweepTimer.unref();
  }

  /**
   * Stop renewing and sweeping; with `release`, hand every lease back so other nodes take over at
   * once. The sessions stay in `it:active`: a run this node stopped (not finished) is then found
   * by another node's next sweep and marked interrupted; one that had ended is simply let go there.
   */
  async stop({ release }: { release: boolean }): Promise<void> {
    clearInterval(this.#renewTimer);
    clearInterval(this.#sweepTimer);
    if (!release) return;
    const leases = [...this.#held.values()];
    for (const lease of leases) this.#forget(lease.sessionId);
    await Promise.allSettled(leases.map((lease) => this.leases.release(lease)));
  }

  async #renewAll(): Promise<void> {
    await Promise.all([...this.#held.values()].map((lease) => this.#renew(lease)));
  }

  /** Renew one lease: false, and the session reported lost, when it is not this node's any more. */
  async #renew(lease: SessionLease): Promise<boolean> {
    let ours: boolean;
    try {
      ours = await this.leases.renew(lease);
    } catch (error) {
      this.report(`renewing the lease of session ${lease.sessionId} failed`, error);
      // Self-fencing: past its TTL without a renewal the lease may be another node's by now.
      const renewedAt = this.#renewedAt.get(lease.sessionId) ?? 0;
      if (performance.now() - renewedAt < this.leases.ttlMs) return true;
      ours = false;
    }
    if (ours) {
      this.#renewals += 1;
      this.#renewedAt.set(lease.sessionId, performance.now());
      return true;
    }
    if (this.#held.get(lease.sessionId) === lease) {
      this.#forget(lease.sessionId);
      this.#lost += 1;
      this.#events.lost(lease.sessionId);
    }
    return false;
  }

  #forget(sessionId: string): void {
    this.#held.delete(sessionId);
    this.#renewedAt.delete(sessionId);
    this.store.unfence(sessionId);
  }

  async #sweep(): Promise<void> {
    let orphans: string[];
    try {
      orphans = await this.leases.orphans();
    } catch (error) {
      this.report('looking for sessions whose owner died failed', error);
      return;
    }
    for (const sessionId of orphans) this.#events.orphaned(sessionId);
  }
}
