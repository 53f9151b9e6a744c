/** A value that is not a promise: what a synchronous turn may return. */
export type Settled<T> = T extends PromiseLike<unknown> ? never : T;

/**
 * Run `apply` as one synchronous turn of a session: the checks and the events they allow happen
 * against the same state, with nothing in between, and the requester's answer precedes every event
 * the turn causes (events are sent only once written, after it). The type refuses an `async`
 * function: a turn that awaited could interleave with another command.
 */
export function inOneTurn<T>(apply: () => Settled<T>): Settled<T> {
  return apply();
}
