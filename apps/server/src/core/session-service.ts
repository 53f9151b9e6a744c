import type { Health, MessageMode, Owner, SessionDeletedEvent, SessionInfo, SessionOptions, SessionSnapshotData, ShareRecord, ShareRole } from '@interthought/protocol';
import type { OutboxStats } from './persistence/outbox.js';
import type { UsageTotals } from './run/usage-ledger.js';
import type { Peer, ReplyTo } from './fanout/peer.js';
import type { Quota } from './commands/quota.js';
import type { SessionPage } from './persistence/event-store.js';
import type { SessionExport } from './transfer/session-export.js';
import type { ParsedImport } from './transfer/session-import.js';

/** Who a request speaks for, when the server tells users apart: a new session's owner, the name in the log. */
export type Actor = Owner;

export interface CreateSessionInput {
  task: string;
  /**
   * The new session's id, when the caller names it (an AG-UI thread is the session of its
   * `threadId`); refused with `INVALID_STATE` when a session has it already. Else the server's own.
   */
  sessionId?: string;
  agent?: string;
  options?: SessionOptions;
  /** The user the session belongs to (PROTOCOL.md §21.2); absent on a server without users. */
  ownedBy?: Actor;
  /** Whose quota of active sessions a run this starts counts against (see `Peer.quota`). */
  quota?: Quota;
}

export interface CorrectStepInput {
  sessionId: string;
  stepId: string;
  content: string;
  note?: string;
  baseRevision?: number;
  /** Who corrects: the user's id, else the connection id. */
  by?: string;
  /** The user's display name (with users only). */
  byName?: string;
  /** Whose quota of active sessions a run this starts counts against (see `Peer.quota`). */
  quota?: Quota;
}

/** A decision on a tool call that waits for approval (`tool.approve` / `tool.reject`). */
export interface DecideInput {
  sessionId: string;
  stepId: string;
  /** Why it was rejected (rejections only). */
  reason?: string;
  /** The approval also holds for later calls of the tool in this session (approvals only, PROTOCOL.md §25.3). */
  remember?: 'session';
  /** Who decides: the user's id, else the connection id. */
  by?: string;
  /** The user's display name (with users only). */
  byName?: string;
  /** Whose quota of active sessions a run this starts counts against (see `Peer.quota`). */
  quota?: Quota;
}

/** Which remembered approvals to take back (`approvals.forget`, PROTOCOL.md §25.3): the one of `tool`, or every one. */
export interface ForgetApprovalsInput {
  sessionId: string;
  tool?: string;
  /** Who takes them back: the user's id, else the connection id. */
  by?: string;
  byName?: string;
}

/** An answer to the question an `ask_user` call waits on (`input.provide`, PROTOCOL.md §25.2). */
export interface AnswerInput {
  sessionId: string;
  stepId: string;
  /** The answer: 1 to 20,000 characters of well-formed text. Absent only when the server closes the question (`timedOut`). */
  text?: string;
  /** The server closes the question unanswered: its deadline passed (`options.inputTimeoutMs`). Never from a client. */
  timedOut?: true;
  /** Who answers: the user's id, else the connection id. */
  by?: string;
  /** The user's display name (with users only). */
  byName?: string;
  /** Whose quota of active sessions a run this starts counts against (see `Peer.quota`). */
  quota?: Quota;
}

/** Which sub-agent to stop (`subagent.cancel`): the session, and the scope (its delegate call's step id). */
export interface CancelSubagentInput {
  sessionId: string;
  scope: string;
}

/** What the user says to a session's agent (`session.message`). */
export interface MessageInput {
  sessionId: string;
  text: string;
  mode?: MessageMode;
  /** Who says it: the user's id (else the connection id), and with users their name. */
  by?: string;
  byName?: string;
  /** Whose quota of active sessions a run this starts counts against (see `Peer.quota`). */
  quota?: Quota;
}

/** Where the message went: its `user_message` step id, and whether it waits (`message.queued`). */
export interface MessageResult {
  sessionId: string;
  stepId: string;
  queued: boolean;
}

/** A fork of `sessionId` from `stepId` (`session.fork`). */
export interface ForkInput {
  sessionId: string;
  stepId: string;
  /** The user the fork belongs to (PROTOCOL.md §21.2). */
  ownedBy?: Actor;
  quota?: Quota;
  /** Replay on another agent (PROTOCOL.md §26.5): replaces the source's, checked as in `session.create`. */
  agent?: string;
  /** Replace the source's options (a model the agent offers, a policy …), checked as in `session.create`. */
  options?: SessionOptions;
  /** Run at once from the copied chain instead of waiting `idle`. */
  run?: boolean;
}

/** A share link to make (`session.share`); the token is signed by the caller, which holds the key. */
export interface ShareInput {
  sessionId: string;
  role: ShareRole;
  expiresAt?: string;
  by: string;
  byName?: string;
}

/** A share link to revoke (`session.unshare`). */
export interface UnshareInput {
  sessionId: string;
  shareId: string;
  by: string;
  byName?: string;
}

/** What the access rules read of a session (PROTOCOL.md §21.2): its owner and its links not revoked. */
export interface SessionAccessFacts {
  owner?: Owner | undefined;
  shares: readonly ShareRecord[];
}

/**
 * Which sessions a list holds (PROTOCOL.md §21.2); undefined: every one. A user's own (`ownerId`),
 * plus a share link's session (`sessionId`); a link alone: that session only.
 */
export interface ListScope {
  ownerId?: string;
  sessionId?: string;
}

export interface CorrectionResult {
  sessionId: string;
  stepId: string;
  newStepId: string;
  revision: number;
}

/** What the core reports about itself, for health and metrics. */
export interface SessionCoreStats {
  /** Running or paused sessions (what `maxActiveSessions` caps). */
  activeSessions: number;
  /** Sessions held in memory (running, watched, or cached while idle). */
  sessionsInMemory: number;
  /** What the outbox has written, and how it commits now. */
  commits: OutboxStats;
  /** What the model calls run by this process used, since it started (counters). */
  usage: UsageTotals;
  /** A cluster node's own figures (`GET /api/health`). */
  cluster?: ClusterHealth;
}

/** What a cluster node reports about its part in the cluster. */
export type ClusterHealth = NonNullable<Health['cluster']>;

/**
 * The session core as the transport, the REST routes and the metrics see it: the whole of it.
 * No fastify, no ws: every method is a plain call. Anything that touches the store is
 * asynchronous; refusals reject with a `SessionError` whose `code` is a protocol error code.
 *
 * Direct answers that must precede the events they cause (`session.created`,
 * `correction.accepted`) are sent by the core to `reply.peer` inside the same atomic turn that
 * queues those events, which are sent only once written: the order is a fact, not a race.
 */
export interface SessionService {
  /**
   * Create a session. With `reply`, the requester gets `session.created` (with its request id) and
   * is subscribed from seq 0 before anything is written. Its agent starts on a later tick.
   */
  create(input: CreateSessionInput, reply?: ReplyTo): Promise<SessionInfo>;
  /**
   * Attach `reply.peer` to the session's live events. Without `afterSeq` the peer first gets a
   * `session.snapshot` (with the request id); with it, `session.subscribed` then every event with
   * `seq > afterSeq` in order, or a `session.snapshot` if those events are no longer kept.
   * Nothing is missed or doubled between that and the live stream. `BAD_CURSOR` for a bad `afterSeq`.
   */
  subscribe(sessionId: string, reply: ReplyTo, afterSeq?: number): Promise<void>;
  /** Detach the peer from the session (idempotent); the run goes on. */
  unsubscribe(sessionId: string, peer: Peer): Promise<void>;
  /** Detach the peer from every session and from the list (its connection closed). */
  detach(peer: Peer): void;
  /** How many sessions the peer is subscribed to, and whether to this one (for per-connection caps). */
  subscriptionCount(peer: Peer): number;
  isSubscribed(peer: Peer, sessionId: string): boolean;
  /**
   * Apply a correction as one atomic turn of the session (PROTOCOL.md §7 "Correction semantics").
   * With `reply`, the requester gets `correction.accepted` before any event the correction caused.
   */
  correct(input: CorrectStepInput, reply?: ReplyTo): Promise<CorrectionResult>;
  /**
   * Say something to the session's agent (PROTOCOL.md §20.2 "`session.message`"): on a finished
   * session a new turn starts; while it runs, a `steer` message reaches the chain at the next step
   * boundary and a `queue` one when the turn ends. The requester gets `message.accepted` first.
   */
  message(input: MessageInput, reply?: ReplyTo): Promise<MessageResult>;
  /**
   * A new session, `idle`, whose chain is a copy of the path to `stepId` (§20.4). With `reply`, the
   * requester gets `session.created` and is subscribed from seq 0, as for `create`.
   */
  fork(input: ForkInput, reply?: ReplyTo): Promise<SessionInfo>;
  /**
   * Decide a tool call that waits for approval (PROTOCOL.md §19.3 "Deciding"), as one atomic turn
   * of the session: the requester gets the `approval.resolved` event with its request id, then a
   * new run runs the approved call, or goes on after the refusal's observation.
   */
  approve(input: DecideInput, reply?: ReplyTo): Promise<void>;
  reject(input: DecideInput, reply?: ReplyTo): Promise<void>;
  /**
   * Take back approvals given with `remember: "session"` (PROTOCOL.md §25.3): the requester gets the
   * `approvals.forgotten` event with its request id. `NOT_REMEMBERED` when none is remembered for
   * that tool (or, without one, at all).
   */
  forgetApprovals(input: ForgetApprovalsInput, reply?: ReplyTo): Promise<void>;
  /**
   * Answer the question an `ask_user` call waits on (PROTOCOL.md §25.2), as one atomic turn of the
   * session: the requester gets the `input.resolved` event with its request id, then the answer's
   * observation, and a new run goes on after it. Of two answers at once one wins; the other gets
   * `INPUT_NOT_PENDING` naming who answered.
   */
  provideInput(input: AnswerInput, reply?: ReplyTo): Promise<void>;
  /**
   * Status changes. The resulting `session.status` event goes to every subscriber; the requester
   * gets its copy with `requestId` (instead of the plain one, if it is subscribed).
   */
  pause(sessionId: string, reply?: ReplyTo): Promise<void>;
  resume(sessionId: string, reply?: ReplyTo): Promise<void>;
  cancel(sessionId: string, reply?: ReplyTo): Promise<void>;
  /**
   * Stop one running or waiting sub-agent (PROTOCOL.md §24.6 "Cancelling one sub-agent"): the requester
   * gets the `subagent.status` `cancelled` event with its request id; the parent goes on with that
   * outcome. `STEP_NOT_FOUND` for no such scope, `INVALID_STATE` for one that is not running or waiting.
   */
  cancelSubagent(input: CancelSubagentInput, reply?: ReplyTo): Promise<void>;
  /**
   * Delete the session and its log from the store. Its run is aborted; every subscriber, and the
   * requester with `requestId`, gets `session.deleted` (its last event, at the last seq + 1, not
   * stored, and returned); later requests on it get `SESSION_NOT_FOUND`.
   */
  delete(sessionId: string, reply?: ReplyTo): Promise<SessionDeletedEvent>;
  /**
   * Follow the list of sessions: the requester gets `sessions.watching` with the newest `limit`
   * summaries, newest first (also returned); from then on it gets `sessions.changed` for every summary stored (a session created, its status or
   * revision changed) and `sessions.removed` for every deletion, until `unwatchList` or `detach`.
   */
  watchList(reply: ReplyTo, limit: number, scope?: ListScope): Promise<SessionInfo[]>;
  /** Stop following the list (idempotent). */
  unwatchList(peer: Peer): void;
  /** The session's current snapshot (for REST), or undefined. */
  snapshot(sessionId: string): Promise<SessionSnapshotData | undefined>;
  /**
   * What an export of the session is made of (PROTOCOL.md §20.5): its record, the snapshot its kept
   * events start from when retention trimmed the log, and those events as stored, everything
   * queued so far included. `SESSION_NOT_FOUND` when there is no such session.
   */
  exportSession(sessionId: string): Promise<SessionExport>;
  /** Store a checked import (`parseImport`) as a new session, which the list watchers are told of. */
  importSession(parsed: ParsedImport, ownedBy?: Actor): Promise<SessionInfo>;
  list(options: { limit: number; before?: string; scope?: ListScope }): Promise<SessionPage>;
  /** The session's owner and links (for the access rules), or undefined when there is no such session. */
  accessFacts(sessionId: string): Promise<SessionAccessFacts | undefined>;
  /**
   * Record a share link (`share.created`, PROTOCOL.md §21.3) and return its record. The requester
   * is answered by the caller, which signs the token.
   */
  share(input: ShareInput): Promise<ShareRecord>;
  /** Revoke a link (`share.revoked`); `INVALID_STATE` when the session has no such link. */
  unshare(input: UnshareInput): Promise<void>;
  /** The key share links are signed with when none is configured: random, kept by the store. */
  sharingKey(): Promise<string>;
  /** For health and metrics. */
  readonly stats: SessionCoreStats;
  /** Abort every run, write what is pending, and stop. */
  shutdown(): Promise<void>;
}
