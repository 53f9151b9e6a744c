import type { ServerMessage } from '../messages.js';
import type { SessionInfo } from '../session.js';

/** Gets the whole list, newest first, each time it changes. */
export type SessionListListener = (sessions: readonly SessionInfo[]) => void;

/** Newest first, as the server lists sessions: by `createdAt`, then by id. */
export function newestFirst(a: SessionInfo, b: SessionInfo): number {
  return b.createdAt.localeCompare(a.createdAt) || b.sessionId.localeCompare(a.sessionId);
}

/**
 * The list of sessions as `sessions.watch` follows it: replaced by each `sessions.watching`
 * answer (the first, and the one after every reconnect), then kept current by the
 * `sessions.changed` and `sessions.removed` frames that follow it.
 */
export class SessionListFeed {
  readonly #sessions = new Map<string, SessionInfo>();
  readonly #listeners = new Set<SessionListListener>();
  #listed = false;

  constructor(private readonly listenerFailed: (error: unknown) => void) {}

  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** The list so far, newest first (empty until the first answer). */
  get sessions(): SessionInfo[] {
    return [...this.#sessions.values()].sort(newestFirst);
  }

  /** Add a listener; it gets the list at once when one has been received. */
  add(listener: SessionListListener): void {
    this.#listeners.add(listener);
    if (this.#listed) this.#call(listener, this.sessions);
  }

  remove(listener: SessionListListener): void {
    this.#listeners.delete(listener);
    if (this.#listeners.size === 0) {
      this.#sessions.clear();
      this.#listed = false;
    }
  }

  /** A `sessions.watching` answer: the list starts again from it. */
  reset(sessions: readonly SessionInfo[]): void {
    this.#sessions.clear();
    for (const session of sessions) this.#sessions.set(session.sessionId, session);
    this.#listed = true;
    this.#notify();
  }

  /** Apply a list frame (other frames are not its concern). */
  handle(frame: ServerMessage): void {
    if (!this.#listed) return;
    if (frame.type === 'sessions.changed') {
      this.#sessions.set(frame.session.sessionId, frame.session);
      this.#notify();
    } else if (frame.type === 'sessions.removed' && this.#sessions.delete(frame.sessionId)) {
      this.#notify();
    }
  }

  #notify(): void {
    const sessions = this.sessions;
    for (const listener of [...this.#listeners]) this.#call(listener, sessions);
  }

  #call(listener: SessionListListener, sessions: readonly SessionInfo[]): void {
    try {
      listener(sessions);
    } catch (error) {
      this.listenerFailed(error);
    }
  }
}
