import type { SessionInfo } from '@interthought/protocol';
import type { ListChange } from '../ports/list-relay.js';
import { frameOf, storedFrame, type Frame } from './frame.js';
import type { Peer } from './peer.js';
import { inScope } from './session-list-scope.js';
import type { ListScope } from '../session-service.js';

/** One watcher: the frames held for it while its first page is being read, and what its list holds. */
interface Watcher {
  held: Frame[] | undefined;
  scope: ListScope | undefined;
}

/**
 * The peers following the list of sessions (`sessions.watch`) and what they are told: every
 * summary in their list's scope once it is stored (a session created, its status or revision
 * changed) and every deletion once it is done. One frame per change goes to all of them.
 */
export class SessionListWatchers {
  readonly #peers = new Map<Peer, Watcher>();

  constructor(private readonly reportError: (context: string, error: unknown) => void) {}

  /** Follow the list (of `scope`: PROTOCOL.md §21.2), holding what changes until `release` (the first page is sent in between). */
  hold(peer: Peer, scope?: ListScope): void {
    this.remove(peer);
    this.#peers.set(peer, { held: [], scope });
  }

  /** Send what was held, in order, then tell the peer as changes come. */
  release(peer: Peer): void {
    const watcher = this.#peers.get(peer);
    const held = watcher?.held;
    if (watcher === undefined || held === undefined) return;
    watcher.held = undefined;
    for (const frame of held) this.#send(peer, frame);
  }

  /** Stop telling `peer` (idempotent). */
  remove(peer: Peer): void {
    const watcher = this.#peers.get(peer);
    if (watcher === undefined) return;
    this.#peers.delete(peer);
  }

  /** A session's summary was stored: created, or changed. */
  changed(session: SessionInfo): void {
    if (this.#peers.size === 0) return;
    this.#tell(frameOf({ type: 'sessions.changed', session }), session);
  }

  /** A list change told by another process (a cluster node), with its text as it came: sent as is, never serialised again. */
  relay(change: ListChange, text: string): void {
    if (this.#peers.size === 0) return;
    // Scoped watchers read the summary from the typed change; a removal goes to every watcher.
    this.#tell(storedFrame(text, change), change.type === 'sessions.changed' ? change.session : undefined);
  }

  /**
   * A session was deleted with its log. Every watcher is told: the frame carries nothing but the
   * id, and the session's owner is no longer known (PROTOCOL.md §21.2).
   */
  removed(sessionId: string): void {
    if (this.#peers.size === 0) return;
    this.#tell(frameOf({ type: 'sessions.removed', sessionId }), undefined);
  }

  /** `session`: the summary the frame carries, for scoped watchers; undefined for a frame every watcher gets. */
  #tell(frame: Frame, session: SessionInfo | undefined): void {
    for (const [peer, watcher] of this.#peers) {
      if (session !== undefined && !inScope(session, watcher.scope)) continue;
      if (watcher.held === undefined) this.#send(peer, frame);
      else watcher.held.push(frame);
    }
  }

  #send(peer: Peer, frame: Frame): void {
    try {
      peer.sendLive(frame);
    } catch (error) {
      // Peer.sendLive must not throw; one that does must not cost the other watchers their frame.
      this.reportError(`peer ${peer.id} threw from send`, error);
    }
  }
}
