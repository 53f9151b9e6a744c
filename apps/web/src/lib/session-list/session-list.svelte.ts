import { SESSION_LIST_LIMITS, newestFirst, type InterthoughtClient, type SessionInfo } from '@interthought/protocol';
import type { RestApi } from '$lib/api/rest-api.js';

/**
 * The sessions in the left rail, newest first. The newest `limit` are kept fresh by the server
 * itself: the client's `watchSessions` hands over the whole window once, after every change (a
 * session created, its status or revision changed, deleted) and again after every reconnect;
 * nothing is polled. Older sessions are fetched page by page on request (`loadOlder`, REST) and
 * shown below the window as they were then.
 */
export class SessionList {
  /** The pushed window and the older pages, merged: each session once, newest first. */
  #sessions = $derived.by(() => this.#merge());
  #loaded = $state(false);
  #error = $state<string | null>(null);
  /** Older sessions are being fetched. */
  #loadingOlder = $state(false);
  #olderError = $state<string | null>(null);
  #window = $state.raw<SessionInfo[]>([]);
  #older = $state.raw<SessionInfo[]>([]);
  /** The cursor of the next older page: undefined before the first, null once there is none. */
  #olderCursor = $state<string | null | undefined>(undefined);
  #stopWatching: (() => void) | null = null;
  /**
   * How many sub-agents run in the sessions this tab follows (the open one): the server's list
   * does not carry it, the page that folds the session's events does.
   */
  #subagentsRunning = $state.raw<ReadonlyMap<string, number>>(new Map());
  /** Sessions deleted while this page is open: a list sent before the deletion must not bring them back. */
  readonly #gone = new Set<string>();

  constructor(
    private readonly client: Pick<InterthoughtClient, 'watchSessions'>,
    private readonly api: Pick<RestApi, 'sessions'>,
    private readonly limit: number = SESSION_LIST_LIMITS.default,
  ) {}

  get sessions(): readonly SessionInfo[] {
    return this.#sessions;
  }

  get loaded(): boolean {
    return this.#loaded;
  }

  get error(): string | null {
    return this.#error;
  }

  get loadingOlder(): boolean {
    return this.#loadingOlder;
  }

  get olderError(): string | null {
    return this.#olderError;
  }

  /** Whether older sessions may exist beyond what is shown: the window is full, or a page said so. */
  get canLoadOlder(): boolean {
    if (this.#olderCursor === null) return false;
    return typeof this.#olderCursor === 'string' || this.#window.length >= this.limit;
  }

  /** Follow the list until stopped; it shows once the server answers. */
  start(): void {
    this.stop();
    this.#stopWatching = this.client.watchSessions((sessions) => this.#receive(sessions), {
      limit: this.limit,
      onError: (error) => (this.#error = error.message),
    });
  }

  stop(): void {
    this.#stopWatching?.();
    this.#stopWatching = null;
  }

  /**
   * Fetch the next page of older sessions. The first time it pages from the newest (the window
   * moves as sessions come and go, so only the server's cursors leave no gap between pages).
   */
  async loadOlder(): Promise<void> {
    if (this.#loadingOlder || this.#olderCursor === null) return;
    this.#loadingOlder = true;
    try {
      let cursor = this.#olderCursor;
      if (cursor === undefined) {
        const newest = await this.api.sessions({ limit: this.limit });
        this.#addOlder(newest.sessions);
        cursor = newest.nextCursor;
      }
      if (cursor !== undefined) {
        const page = await this.api.sessions({ limit: this.limit, before: cursor });
        this.#addOlder(page.sessions);
        cursor = page.nextCursor;
      }
      this.#olderCursor = cursor ?? null;
      this.#olderError = null;
    } catch (error) {
      this.#olderError = error instanceof Error ? error.message : String(error);
    } finally {
      this.#loadingOlder = false;
    }
  }

  /** Show a session right away (just created, or its status changed here) until the server's list confirms it. */
  upsert(info: SessionInfo): void {
    if (this.#gone.has(info.sessionId)) return;
    const known = this.#window.some((session) => session.sessionId === info.sessionId);
    if (!known) this.#window = [info, ...this.#window].sort(newestFirst);
    else this.#window = this.#window.map((session) => (session.sessionId === info.sessionId ? { ...session, ...info } : session));
  }

  /** How many sub-agents run in this session, as far as this tab knows (0 when it does not follow it). */
  subagentsRunning(sessionId: string): number {
    return this.#subagentsRunning.get(sessionId) ?? 0;
  }

  /** Say how many sub-agents run in a session this tab follows; 0 when it stops following it. */
  setSubagentsRunning(sessionId: string, count: number): void {
    if (this.subagentsRunning(sessionId) === count) return;
    const next = new Map(this.#subagentsRunning);
    if (count > 0) next.set(sessionId, count);
    else next.delete(sessionId);
    this.#subagentsRunning = next;
  }

  /** Drop a deleted session at once, and for good: ids are never reused. */
  remove(sessionId: string): void {
    this.#gone.add(sessionId);
    const other = (session: SessionInfo) => session.sessionId !== sessionId;
    if (!this.#window.every(other)) this.#window = this.#window.filter(other);
    if (!this.#older.every(other)) this.#older = this.#older.filter(other);
  }

  #receive(sessions: readonly SessionInfo[]): void {
    this.#window = sessions.filter((session) => !this.#gone.has(session.sessionId));
    this.#error = null;
    this.#loaded = true;
  }

  #addOlder(sessions: readonly SessionInfo[]): void {
    const known = new Set(this.#older.map((session) => session.sessionId));
    const fresh = sessions.filter((session) => !known.has(session.sessionId) && !this.#gone.has(session.sessionId));
    if (fresh.length > 0) this.#older = [...this.#older, ...fresh];
  }

  /** The pushed window wins over an older page's copy of the same session (it is newer). */
  #merge(): SessionInfo[] {
    const inWindow = new Set(this.#window.map((session) => session.sessionId));
    return [...this.#window, ...this.#older.filter((session) => !inWindow.has(session.sessionId))].sort(newestFirst);
  }
}
