/**
 * Thrown by an agent whose run was cut off by something outside the session, not by the agent's
 * own failure (e.g. the remote worker running it went away): the session becomes `interrupted`
 * with `detail`, which `session.resume` continues, instead of `failed`.
 */
export class RunInterruptedError extends Error {
  override readonly name = 'RunInterruptedError';

  constructor(readonly detail: string) {
    super(detail);
  }
}

/** Whether `error` is a `RunInterruptedError` (also across copies of this package, by name). */
export function isRunInterrupted(error: unknown): error is RunInterruptedError {
  return error instanceof RunInterruptedError || (error instanceof Error && error.name === 'RunInterruptedError' && typeof (error as { detail?: unknown }).detail === 'string');
}
