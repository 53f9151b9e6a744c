import { EventStoreError, type EventStoreErrorCode } from '../core/persistence/event-store.js';

export { EventStoreError } from '../core/persistence/event-store.js';

/** The codes the cluster scripts refuse with, as the first word of their error reply. */
const SCRIPT_CODES: ReadonlySet<EventStoreErrorCode> = new Set(['SESSION_NOT_FOUND', 'SESSION_EXISTS', 'SEQ_NOT_CONTIGUOUS', 'FENCED']);

/** What to tell the caller for each refusal: what happened and what to do. */
const ADVICE: Partial<Record<EventStoreErrorCode, string>> = {
  SESSION_NOT_FOUND: 'is not in the store; create it before writing to it.',
  SESSION_EXISTS: 'already exists in the store.',
  SEQ_NOT_CONTIGUOUS: 'refused the batch: its seqs do not continue the stored log; nothing was written.',
  FENCED: 'is owned under a newer epoch (another node took it over); this node must stop writing to it. Nothing was written.',
};

/**
 * A script's refusal as the typed `EventStoreError` the other stores throw; any other error (a
 * lost connection, a Redis error) is returned as it is.
 */
export function toStoreError(error: unknown, sessionId: string): unknown {
  if (!(error instanceof Error)) return error;
  // Redis puts `ERR ` before a one-word error reply ('SESSION_NOT_FOUND'), not before 'FENCED …'.
  const [word = '', ...rest] = error.message.replace(/^ERR /, '').split(' ');
  const code = word as EventStoreErrorCode;
  if (!SCRIPT_CODES.has(code)) return error;
  const detail = rest.length > 0 ? ` (${rest.join(' ')})` : '';
  return new EventStoreError(code, `Session ${sessionId} ${ADVICE[code] ?? 'was refused.'}${detail}`);
}
