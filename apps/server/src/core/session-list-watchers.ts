import type { SessionInfo, SessionsChanged, SessionsRemoved } from '@interthought/protocol';
import type { Peer } from './peer.js';

/**
 * The peers following the list of sessions (`sessions.watch`) and what they are told: every
 * summary once it is stored (a session created, its status or revision changed) and every
 * deletion once it is done. Each frame is serialised once for all of them.
 */
export class SessionListWatchers {
  /** Each watcher, with the frames held for it while its first page is being read. */
  readonly #peers = new Map<Peer, string[] | undefined>();

  constructor(private readonly reportError: (context: string, error: unknown) => void) {}

  /** Follow the list, holding what changes until `release` (the first page is sent in between). */
  hold(peer: Peer): void {
    this.#peers.set(peer, []);
  }

  /** Send what was held, in order, then tell the peer as changes come. */
  release(peer: Peer): void {
    const held = this.#peers.get(peer);
    if (held === undefined) return;
    this.#peers.set(peer, undefined);
    for (const frame of held) this.#send(peer, frame);
  }

  /** Stop telling `peer` (idempotent). */
  remove(peer: Peer): void {
    this.#peers.delete(peer);
  }

  /** A session's summary was stored: created, or changed. */
  changed(session: SessionInfo): void {
    if (this.#peers.size === 0) return;
    const frame: SessionsChanged = { type: 'sessions.changed', session };
    this.#tell(JSON.stringify(frame));
  }

  /** A list change told by another process (a cluster node), already serialised. */
  relay(frame: string): void {
    if (this.#peers.size > 0) this.#tell(frame);
  }

  /** A session was deleted with its log. */
  removed(sessionId: string): void {
    if (this.#peers.size === 0) return;
    const frame: SessionsRemoved = { type: 'sessions.removed', sessionId };
    this.#tell(JSON.stringify(frame));
  }

  #tell(frame: string): void {
    for (const [peer, held] of this.#peers) {
      if (held === undefined) this.#send(peer, frame);
      else held.push(frame);
    }
  }

  #send(peer: Peer, frame: string): void {
    try {
      peer.sendLive(frame);
    } catch (error) {
      // Peer.sendLive must not throw; one that does must not cost the other watchers their frame.
      this.reportError(`peer ${peer.id} threw from send`, error);
    }
  }
}
