import type { SessionEvent, SessionInfo, SessionOptions, SessionSnapshotData } from '@interthought/protocol';
import type { SessionPage } from './event-store.js';

/**
 * A listener of sessions: in practice one WebSocket connection. The core serialises each event
 * once and hands the same string to every peer subscribed to the session.
 */
export interface Peer {
  /** The connection id (also recorded as `correction.by`). */
  readonly id: string;
  /**
   * Whose quota the runs this peer starts or resumes count against (the client's address today,
   * the user with identities); without one, only the server-wide cap applies.
   */
  readonly owner?: string;
  /**
   * Send one serialised frame. Must not throw (a closed socket just drops it). `event`, when
   * given, is the session event `frame` is exactly the serialisation of: a transport may use it
   * without parsing (e.g. to coalesce deltas for a slow reader). Frames without it are opaque.
   */
  send(frame: string, event?: SessionEvent): void;
  /**
   * Optional (additive): told after its last frame of a session when the core ended the
   * subscription on its own, because the session was deleted, so the peer can stop counting it.
   */
  forget?(sessionId: string): void;
  /**
   * Optional (additive): send a live frame that is not a session event (a list change). Unlike a
   * frame sent without `event`, which a transport may treat as a bounded burst (an answer, a
   * replay), these keep coming, so they count toward the peer's slow-reader limit.
   */
  sendLive?(frame: string): void;
}

/** How a request's direct answer reaches its requester. */
export interface ReplyTo {
  peer: Peer;
  requestId?: string;
}

export interface CreateSessionInput {
  task: string;
  agent?: string;
  options?: SessionOptions;
  /** Whose quota of active sessions the run counts against (see `Peer.owner`). */
  owner?: string;
}

export interface CorrectStepInput {
  sessionId: string;
  stepId: string;
  content: string;
  note?: string;
  baseRevision?: number;
  /** Who corrects (the connection id). */
  by?: string;
  /** Whose quota of active sessions a run the correction revives counts against (see `Peer.owner`). */
  owner?: string;
}

export interface CorrectionResult {
  sessionId: string;
  stepId: string;
  newStepId: string;
  revision: number;
}

/**
 * The session core as the transport and the REST routes see it. No fastify, no ws: every
 * method is a plain call. Refusals throw a `SessionError` whose `code` is a protocol error code.
 */
export interface SessionService {
  /** Create a session; its agent starts on a later tick, so the caller can answer and subscribe first. */
  create(input: CreateSessionInput): SessionInfo;
  /**
   * Attach `reply.peer` to the session's live events. Without `afterSeq` the peer first gets a
   * `session.snapshot` (with the request id); with it, `session.subscribed` then every event with
   * `seq > afterSeq` in order, or a `session.snapshot` if those events are no longer kept.
   * Nothing is missed or doubled between that and the live stream. `BAD_CURSOR` for a bad `afterSeq`.
   */
  subscribe(sessionId: string, reply: ReplyTo, afterSeq?: number): void;
  /** Detach the peer from the session (idempotent); the run goes on. */
  unsubscribe(sessionId: string, peer: Peer): void;
  /** Detach the peer from every session and from the list (its connection closed). */
  detach(peer: Peer): void;
  /** Apply a correction as one atomic turn of the session (PROTOCOL.md §7 "Correction semantics"). */
  correct(input: CorrectStepInput): CorrectionResult;
  /**
   * Status changes. The resulting `session.status` event goes to every subscriber; the requester
   * gets its copy with `requestId` (instead of the plain one, if it is subscribed).
   */
  pause(sessionId: string, reply?: ReplyTo): void;
  resume(sessionId: string, reply?: ReplyTo): void;
  cancel(sessionId: string, reply?: ReplyTo): void;
  /**
   * Delete the session and its log from the store (additive). Its run is aborted; every
   * subscriber, and the requester with `requestId`, gets `session.deleted` (its last event, at the
   * last seq + 1, not stored); later requests on it get `SESSION_NOT_FOUND`.
   */
  delete(sessionId: string, reply?: ReplyTo): void;
  /**
   * Follow the list of sessions (additive): returns the newest `limit` summaries, newest first;
   * from then on `peer` gets `sessions.changed` for every summary stored (a session created, its
   * status or revision changed) and `sessions.removed` for every deletion, until `unwatchList`
   * or `detach`.
   */
  watchList(peer: Peer, limit: number): SessionInfo[];
  /** Stop following the list (idempotent). */
  unwatchList(peer: Peer): void;
  /** The session's current snapshot (for REST), or undefined. */
  snapshot(sessionId: string): SessionSnapshotData | undefined;
  list(options: { limit: number; before?: string }): SessionPage;
  /** Abort every run, write what is pending, and stop. */
  shutdown(): Promise<void>;
}
