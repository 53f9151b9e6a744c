import type { SessionInfo, SessionsChanged, SessionsRemoved } from '@interthought/protocol';
import type { Peer } from './session-service.js';

/**
 * The peers following the list of sessions (`sessions.watch`) and what they are told: every
 * summary once it is stored (a session created, its status or revision changed) and every
 * deletion once it is done. Each frame is serialised once for all of them.
 */
export class SessionListWatchers {
  readonly #peers = new Set<Peer>();

  constructor(private readonly reportError: (context: string, error: unknown) => void) {}

  add(peer: Peer): void {
    this.#peers.add(peer);
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

  /** A session was deleted with its log. */
  removed(sessionId: string): void {
    if (this.#peers.size === 0) return;
    const frame: SessionsRemoved = { type: 'sessions.removed', sessionId };
    this.#tell(JSON.stringify(frame));
  }

  #tell(frame: string): void {
    for (const peer of this.#peers) {
      try {
        if (peer.sendLive) peer.sendLive(frame);
        else peer.send(frame);
      } catch (error) {
        // Peer.send must not throw; one that does must not cost the other watchers their frame.
        this.reportError(`peer ${peer.id} threw from send`, error);
      }
    }
  }
}
