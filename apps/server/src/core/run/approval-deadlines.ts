import type { WaitKind } from '../commands/pending-wait.js';

/**
 * The deadlines of the sessions' pending waits, an approval (`options.approvalTimeoutMs`,
 * PROTOCOL.md §19.4 "Timeout") or a question (`options.inputTimeoutMs`, §25.2), one per session
 * id: a waiting session holds no run and may leave memory, so its deadline is kept by id, and
 * armed again from the step's `requestedAt` when it is loaded after a restart.
 */
export class ApprovalDeadlines {
  readonly #timers = new Map<string, { stepId: string; timer: NodeJS.Timeout }>();

  constructor(
    private readonly expire: (sessionId: string, stepId: string, kind: WaitKind) => void,
    private readonly now: () => Date,
  ) {}

  /** The call `stepId` of the session waits (for `kind`) from `requestedAt`; `expire` runs once `timeoutMs` have passed since. */
  arm(sessionId: string, stepId: string, requestedAt: string, timeoutMs: number, kind: WaitKind = 'approval'): void {
    const current = this.#timers.get(sessionId);
    if (current?.stepId === stepId) return;
    this.disarm(sessionId);
    const started = Date.parse(requestedAt);
    const left = Number.isFinite(started) ? started + timeoutMs - this.now().getTime() : timeoutMs;
    const timer = setTimeout(
      () => {
        this.#timers.delete(sessionId);
        this.expire(sessionId, stepId, kind);
      },
      Math.max(0, left),
    );
    timer.unref();
    this.#timers.set(sessionId, { stepId, timer });
  }

  /** The session's call was decided or answered, invalidated, cancelled or deleted. */
  disarm(sessionId: string): void {
    const current = this.#timers.get(sessionId);
    if (current === undefined) return;
    clearTimeout(current.timer);
    this.#timers.delete(sessionId);
  }

  get armed(): number {
    return this.#timers.size;
  }

  stop(): void {
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
