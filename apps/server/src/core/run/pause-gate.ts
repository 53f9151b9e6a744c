interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

const open: Promise<void> = Promise.resolve();

/**
 * Holds a session's agent while the session is paused. Writers call `wait(signal)` between
 * tokens: it resolves at once when open, on `open()` after a pause, and rejects with the
 * signal's reason when the run is aborted meanwhile (a correction or cancel while paused).
 */
export class PauseGate {
  #paused = false;
  readonly #waiters = new Set<Waiter>();

  get paused(): boolean {
    return this.#paused;
  }

  /** Close the gate: later `wait` calls hold until `open()`. */
  close(): void {
    this.#paused = true;
  }

  /** Open the gate and release every waiter. */
  open(): void {
    this.#paused = false;
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const waiter of waiters) {
      waiter.signal.removeEventListener('abort', waiter.onAbort);
      waiter.resolve();
    }
  }

  /** Resolves when the gate is open; rejects with `signal.reason` if the signal aborts first. */
  wait(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (!this.#paused) return open;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.#waiters.delete(waiter);
          reject(signal.reason);
        },
      };
      this.#waiters.add(waiter);
      signal.addEventListener('abort', waiter.onAbort, { once: true });
    });
  }

  /** How many writers are held (for tests and metrics). */
  get waiting(): number {
    return this.#waiters.size;
  }
}
