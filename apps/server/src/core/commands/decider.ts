/** `by` of a decision made through a caller that named nobody (a direct call of the core). */
export const UNKNOWN_DECIDER = 'unknown';

/** The `byName` field to spread into an event, when the request named the user. */
export function byNameOf(input: { byName?: string | undefined }): { byName?: string } {
  return input.byName === undefined ? {} : { byName: input.byName };
}
