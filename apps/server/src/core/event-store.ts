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

/**
 * The durable home of sessions and their event logs. Implementations: SQLite (what `main.ts`
 * opens) and in-memory (tests, and `buildApp` given no store). Calls are synchronous so the session core can keep each turn atomic;
 * `appendBatch` is called with every event of a synchronous run, or of a whole turn while
 * transactions are dear (group commit, see `CommitWindow`), and must be durable when it returns, since events are sent to clients only after.
 */
export interface EventStore {
  /** Record a new session (before its first event). */
  createSession(record: SessionRecord): void;
  /** Persist a session's summary (status, revision …) as it changes. */
  updateSession(info: SessionInfo): void;
  getSession(sessionId: string): SessionRecord | undefined;
  /**
   * Every session whose stored status is `status` (optional, additive). Used at startup to mark
   * the runs a previous process left `running` as `interrupted` without scanning every session.
   */
  listSessionsByStatus?(status: SessionStatus): SessionRecord[];
  /** Sessions newest first; `before` is a cursor from a previous page. */
  listSessions(options: { limit: number; before?: string }): SessionPage;
  deleteSession(sessionId: string): void;
  /**
   * Append events (of any sessions) in one transaction; each session's seqs are contiguous.
   * `frames[i]`, when given, is `JSON.stringify(events[i])`: events are serialised once, for the
   * store and every subscriber alike.
   */
  appendBatch(events: readonly SessionEvent[], frames?: readonly string[]): void;
  /** The session's events with `seq > afterSeq`, in order, at most `limit`. */
  readEvents(sessionId: string, afterSeq: number, limit?: number): SessionEvent[];
  /** The same events as `readEvents`, as their JSON strings, so a replay is sent without re-serialising. */
  readEventFrames?(sessionId: string, afterSeq: number, limit?: number): string[];
  /** The lowest seq still kept (retention may trim older ones); undefined when the log is empty. */
  firstKeptSeq(sessionId: string): number | undefined;
  /** A stored snapshot to rebuild state from when old events were trimmed (optional). */
  readSnapshot?(sessionId: string): SessionSnapshotData | undefined;
  close(): void;
}
