import type { SessionEvent } from '@interthought/protocol';
import type { Quota } from '../commands/quota.js';

/**
 * A listener of sessions: in practice one WebSocket connection. The core serialises each event
 * once and hands the same string to every peer subscribed to the session.
 */
export interface Peer {
  /** The connection id (also recorded as `correction.by`). */
  readonly id: string;
  /**
   * Whose quota the runs this peer starts or resumes count against: the signed-in user, else the
   * client's address; without one, only the server-wide cap applies.
   */
  readonly quota?: Quota;
  /** The signed-in user, when the server identifies users (INTERTHOUGHT_AUTH `jwt` or `proxy`). */
  readonly user?: { id: string; name: string; admin: boolean };
  /**
   * Send one serialised frame. Must not throw (a closed socket just drops it). `event`, when
   * given, is the session event `frame` is exactly the serialisation of: a transport may use it
   * without parsing (e.g. to coalesce deltas for a slow reader). Frames without it are opaque.
   */
  send(frame: string, event?: SessionEvent): void;
  /**
   * Send a live frame that is not a session event (a list change). Unlike a frame sent without
   * `event`, which a transport may treat as a bounded burst (an answer, a replay), these keep
   * coming, so they count toward the peer's slow-reader limit.
   */
  sendLive(frame: string): void;
}

/** How a request's direct answer reaches its requester. */
export interface ReplyTo {
  peer: Peer;
  requestId?: string;
}
