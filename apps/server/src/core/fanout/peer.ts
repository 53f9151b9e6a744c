import type { Quota } from '../commands/quota.js';
import type { Frame } from './frame.js';

/**
 * A listener of sessions: in practice one WebSocket connection. The core hands the same `Frame` of
 * each event to every peer subscribed to the session, so it is serialised once, by the first peer
 * that reads its `text`; a listener inside the server reads its `message` instead.
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
   * Send one frame. Must not throw (a closed socket just drops it). A `live` frame is a session
   * event of the live stream (a transport may coalesce deltas for a slow reader, reading
   * `frame.event`); any other is a bounded burst (an answer, an opening, a replay).
   */
  send(frame: Frame): void;
  /**
   * Send a live frame that is not a session event (a list change). Unlike a frame that is not
   * `live`, which a transport may treat as a bounded burst, these keep coming, so they count
   * toward the peer's slow-reader limit.
   */
  sendLive(frame: Frame): void;
}

/** How a request's direct answer reaches its requester. */
export interface ReplyTo {
  peer: Peer;
  requestId?: string;
}
