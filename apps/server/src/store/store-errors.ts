/** Why the store refused a call. */
export type EventStoreErrorCode =
  | 'SESSION_NOT_FOUND'
  | 'SESSION_EXISTS'
  /** A batch's seqs for a session do not continue the stored `lastSeq` one by one. */
  | 'SEQ_NOT_CONTIGUOUS'
  /** An event without a usable `sessionId`, `seq` or `type`. */
  | 'BAD_EVENT'
  /** A `limit` that is not a positive integer. */
  | 'BAD_LIMIT'
  | 'STORE_CLOSED'
  /** Cluster mode: the writer's epoch is not the session's (another node took the session over). */
  | 'FENCED';

/** A store call refused: nothing was written. */
export class EventStoreError extends Error {
  override readonly name = 'EventStoreError';
  constructor(
    readonly code: EventStoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}
