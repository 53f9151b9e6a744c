import { abortableSleep } from './abortable-sleep.js';

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

/** The end of the current event-loop turn for each run (keyed by its signal) that asked during it. */
const turnEnds = new WeakMap<AbortSignal, Promise<void>>();

/**
 * One `setImmediate` per run per turn, however many of its writes wait for it: a fast agent
 * issuing 512 writes in a tick costs one immediate, not 512. Runs keep an immediate each, so a
 * run's burst still resumes in a callback of its own, whose events the outbox can commit
 * without waiting for every other session's.
 */
function endOfTurn(signal: AbortSignal): Promise<void> {
  let turnEnd = turnEnds.get(signal);
  if (turnEnd === undefined) {
    turnEnd = new Promise<void>((resolve) => {
      setImmediate(() => {
        turnEnds.delete(signal);
        resolve();
      });
    });
    turnEnds.set(signal, turnEnd);
  }
  return turnEnd;
}

/**
 * Wait `ms` between tokens, or one `setImmediate` turn when 0 so I/O and other sessions still
 * get their turn between tokens of a fast agent. Rejects with `signal.reason` once aborted.
 */
export function pace(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) {
    // No abort listener on the hot path: the check after the turn is enough.
    return endOfTurn(signal).then(() => {
      if (signal.aborted) throw signal.reason;
    });
  }
  return abortableSleep(ms, signal);
}

/** The error a run's writes reject with once it is aborted: a DOMException named `AbortError`. */
export function abortError(why: string): DOMException {
  return new DOMException(`The run was aborted: ${why}.`, 'AbortError');
}
