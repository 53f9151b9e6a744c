import type { SessionDeletedEvent } from '@interthought/protocol';
import type { Frame } from '../fanout/frame.js';
import type { Peer, ReplyTo } from '../fanout/peer.js';
import type { LiveSession } from '../sessions/live-session.js';

/**
 * A request of a viewer on a session, going out: `reply` is what the command answers (the
 * requester's own reply, or one that catches the answer to put it in order with the session's
 * events), `answered` takes an answer that arrives from elsewhere, `release` ends the hold.
 */
export interface HeldRequest {
  readonly reply: ReplyTo | undefined;
  answered(frame: Frame): void;
  release(): void;
}

/**
 * How a process's clients follow sessions (a port of the core): in a single process, straight from
 * the sessions it runs as their events are written; in a cluster, from the shared log and channel,
 * whichever node runs them. Every method keeps the contract of `SessionService`'s of the same name.
 */
export interface SessionFanout {
  subscribe(sessionId: string, reply: ReplyTo, afterSeq?: number): Promise<void>;
  /** The requester of a new session follows it from seq 0: called in the turn that creates it, before its first event. */
  attachCreator(session: LiveSession, peer: Peer): Promise<void> | undefined;
  unsubscribe(sessionId: string, peer: Peer): Promise<void>;
  detach(peer: Peer): void;
  count(peer: Peer): number;
  follows(peer: Peer, sessionId: string): boolean;
  /** Hold the requester's events of the session while its request is in flight (see `HeldRequest`). */
  hold(sessionId: string, reply: ReplyTo | undefined): HeldRequest;
  /** The session was deleted here: its followers elsewhere get its last event too. */
  deleted(event: SessionDeletedEvent): Promise<void>;
  /** Sessions followed by clients of this process (health), when the fan-out counts them. */
  readonly followed?: number;
  close(): Promise<void>;
}
