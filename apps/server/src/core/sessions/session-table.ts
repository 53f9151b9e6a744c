import { isActive } from '@interthought/protocol';
import type { LiveSession } from './live-session.js';

/**
 * The sessions held in memory, and the cache that decides which idle ones stay. A session is in
 * the table while it is busy (running, paused, watched, or holding unwritten events); once idle it
 * joins a small least-recently-idle cache, and beyond `idleCapacity` the oldest idle ones are
 * dropped (the store reloads them on demand).
 */
export class SessionTable {
  readonly #sessions = new Map<string, LiveSession>();
  /** Idle sessions still in `#sessions`, least recently idle first. */
  readonly #idle = new Map<string, LiveSession>();

  constructor(private readonly idleCapacity: number) {}

  get(sessionId: string): LiveSession | undefined {
    return this.#sessions.get(sessionId);
  }

  /** Whether this very session object is the table's current one for its id. */
  holds(session: LiveSession): boolean {
    return this.#sessions.get(session.id) === session;
  }

  has(sessionId: string): boolean {
    return this.#sessions.has(sessionId);
  }

  values(): IterableIterator<LiveSession> {
    return this.#sessions.values();
  }

  /** Sessions held in memory (running, watched, or cached while idle). */
  get size(): number {
    return this.#sessions.size;
  }

  /** Running or paused sessions, of everyone or of one quota (`Quota.key`). */
  activeCount(quotaKey?: string): number {
    let count = 0;
    for (const session of this.#sessions.values()) {
      if (isActive(session.status) && (quotaKey === undefined || session.quotaKey === quotaKey)) count += 1;
    }
    return count;
  }

  add(session: LiveSession): LiveSession {
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The session is in use again: it leaves the idle cache (and cannot be dropped meanwhile). */
  inUse(sessionId: string): void {
    this.#idle.delete(sessionId);
  }

  /** The session is gone for good (deleted). */
  remove(session: LiveSession): void {
    this.#idle.delete(session.id);
    if (this.holds(session)) this.#sessions.delete(session.id);
  }

  /**
   * Keep an idle session in the cache; beyond it, drop the least recently idle. `keep` spares the
   * session itself, for a caller that is about to use it.
   */
  noteIfIdle(session: LiveSession, { keep = false } = {}): void {
    if (session.busy || !this.holds(session)) return;
    this.#idle.delete(session.id);
    this.#idle.set(session.id, session);
    for (const [id, oldest] of this.#idle) {
      if (this.#idle.size <= this.idleCapacity || (keep && oldest === session)) break;
      this.#idle.delete(id);
      if (!oldest.busy && this.#sessions.get(id) === oldest) this.#sessions.delete(id);
    }
  }
}
