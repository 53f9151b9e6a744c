/**
 * Paused runs give their slot back. A paused session counts against the server's cap of active
 * sessions (and its owner's) for as long as it stays paused, so one that a client paused and
 * abandoned would hold its slot for ever. After `ttlMs` paused, `expire` is called: the core stops
 * the run and marks the session `interrupted`, the status a restart leaves, which `session.resume`
 * continues; nothing of the session is lost.
 */
export class PausedRunExpiry<S> {
  readonly #timers = new Map<S, NodeJS.Timeout>();

  constructor(
    private readonly ttlMs: number,
    private readonly expire: (session: S) => void,
  ) {}

  /** The session was paused (again): its clock starts now. */
  arm(session: S): void {
    this.disarm(session);
    const timer = setTimeout(() => {
      this.#timers.delete(session);
      this.expire(session);
    }, this.ttlMs);
    timer.unref();
    this.#timers.set(session, timer);
  }

  /** The session left `paused` (resumed, cancelled, corrected, deleted). */
  disarm(session: S): void {
    const timer = this.#timers.get(session);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#timers.delete(session);
  }

  get armed(): number {
    return this.#timers.size;
  }

  stop(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
