import type { IndexedCorrection } from '../../corrections/correction-index.js';
import type { StoredCorrections } from '../../corrections/stored-corrections.js';
import type { SessionEvent, SessionInfo, SessionOptions, SessionPage, SessionSnapshotData, SessionStatus } from '@interthought/protocol';

/** What the store keeps of a session besides its events. */
export interface SessionRecord {
  info: SessionInfo;
  options: SessionOptions;
  /** The last seq written for this session (0 when none). */
  lastSeq: number;
}

/** A page of the sessions list, newest first: what `GET /api/sessions` answers. */
export type { SessionPage };

/** One append: events of any sessions, their serialisations, and the summaries they changed. */
export interface AppendBatch {
  events: readonly SessionEvent[];
  /** `frames[i]` is `JSON.stringify(events[i])`: serialised once, for the store and every subscriber alike. */
  frames: readonly string[];
  /**
   * Summaries (status, revision …) changed by these events, written with them: a stored summary
   * never runs ahead of, nor behind, the log it describes.
   */
  summaries?: readonly SessionInfo[];
  /**
   * The corrections these events make (PROTOCOL.md §26.1), written with them into the store's
   * index (`EventStore.corrections`): the index never runs ahead of, nor behind, the log.
   */
  corrections?: readonly IndexedCorrection[];
}

/**
 * The durable home of sessions and their event logs. Implementations: SQLite (the embedded
 * default), Redis (cluster mode) and in-memory (tests, and `buildApp` given no store).
 *
 * Every call is asynchronous, so a store over the network fits; the session core keeps one
 * `appendBatch` in flight per outbox and sends events to clients only after it resolved, so an
 * append must be durable when its promise resolves. A refusal rejects with an error and changes
 * nothing.
 */
export interface EventStore {
  /** Record a new session (before its first event). */
  createSession(record: SessionRecord): Promise<void>;
  /** Persist a session's summary on its own (appends carry the summaries their events change). */
  updateSession(info: SessionInfo): Promise<void>;
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** Every session whose stored status is `status`, oldest first (start-up marks runs a dead process left `running` as `interrupted`). */
  listSessionsByStatus(status: SessionStatus): Promise<SessionRecord[]>;
  /** Sessions newest first; `before` is a cursor from a previous page; `ownerId`: only that user's (`info.owner.id`). */
  listSessions(options: { limit: number; before?: string; ownerId?: string }): Promise<SessionPage>;
  /** Remove the session, its events and its snapshot together. Unknown ids are ignored. */
  deleteSession(sessionId: string): Promise<void>;
  /**
   * Append events (of any sessions) as one atomic write, or nothing; each session's seqs must
   * continue its stored `lastSeq` one by one. Durable when the promise resolves.
   */
  appendBatch(batch: AppendBatch): Promise<void>;
  /** The session's events with `seq > afterSeq`, in order, at most `limit`. */
  readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<SessionEvent[]>;
  /** The same events as `readEvents`, as the JSON strings they were stored as, so a replay is sent without re-serialising. */
  readEventFrames(sessionId: string, afterSeq: number, limit?: number): Promise<string[]>;
  /** The lowest seq still kept (retention may trim older ones); undefined when the log is empty. */
  firstKeptSeq(sessionId: string): Promise<number | undefined>;
  /** The state as of the last trimmed event, to rebuild from; undefined while nothing was trimmed. */
  readSnapshot(sessionId: string): Promise<SessionSnapshotData | undefined>;
  /**
   * A random secret made the first time it is asked for and kept with the sessions from then on:
   * it signs share links (PROTOCOL.md §21.3), so a link works on every node and after a restart.
   */
  sharingKey(): Promise<string>;
  /**
   * The store's index of corrections (PROTOCOL.md §26), kept with the batches' `corrections` and
   * emptied of a deleted session. A store from before the index gets it built from the log at
   * start (`buildCorrectionIndex`).
   */
  readonly corrections: StoredCorrections;
  close(): Promise<void>;
}

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
