import { newestFirst, type InterthoughtClient, type SessionInfo } from '@interthought/protocol';

/**
 * The sessions in the left rail, newest first. Kept fresh by the server itself: the client's
 * `watchSessions` hands over the whole list once, after every change (a session created, its
 * status or revision changed, deleted) and again after every reconnect; nothing is polled.
 */
export class SessionList {
  sessions = $state.raw<SessionInfo[]>([]);
  loaded = $state(false);
  error = $state<string | null>(null);
  #stopWatching: (() => void) | null = null;
  /** Sessions deleted while this page is open: a list sent before the deletion must not bring them back. */
  readonly #gone = new Set<string>();

  constructor(
    private readonly client: Pick<InterthoughtClient, 'watchSessions'>,
    private readonly limit = 50,
  ) {}

  /** Follow the list until stopped; it shows once the server answers. */
  start(): void {
    this.stop();
    this.#stopWatching = this.client.watchSessions((sessions) => this.#receive(sessions), {
      limit: this.limit,
      onError: (error) => (this.error = error.message),
    });
  }

  stop(): void {
    this.#stopWatching?.();
    this.#stopWatching = null;
  }

  #receive(sessions: readonly SessionInfo[]): void {
    this.sessions = sessions.filter((session) => !this.#gone.has(session.sessionId));
    this.error = null;
    this.loaded = true;
  }

  /** Show a session right away (just created, or its status changed here) until the server's list confirms it. */
  upsert(info: SessionInfo): void {
    if (this.#gone.has(info.sessionId)) return;
    const known = this.sessions.some((session) => session.sessionId === info.sessionId);
    if (!known) this.sessions = [info, ...this.sessions].sort(newestFirst);
    else this.sessions = this.sessions.map((session) => (session.sessionId === info.sessionId ? { ...session, ...info } : session));
  }

  /** Drop a deleted session at once, and for good: ids are never reused. */
  remove(sessionId: string): void {
    this.#gone.add(sessionId);
    if (this.sessions.some((session) => session.sessionId === sessionId)) {
      this.sessions = this.sessions.filter((session) => session.sessionId !== sessionId);
    }
  }
}
