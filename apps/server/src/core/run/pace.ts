import { abortableSleep } from '@interthought/agent';

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
