import type { SessionInfo } from '@interthought/protocol';
import type { RestApi } from '$lib/api/rest-api.js';

/**
 * The sessions in the left rail, newest first. Kept fresh by polling `GET /api/sessions`
 * every few seconds (the server has no list feed) and by `refresh()` right after this
 * page's own actions, so a session you start shows up at once.
 */
export class SessionList {
  sessions = $state.raw<SessionInfo[]>([]);
  loaded = $state(false);
  error = $state<string | null>(null);
  #timer: ReturnType<typeof setInterval> | null = null;
  #inFlight: Promise<void> | null = null;
  /** Sessions deleted while this page is open: a poll answered before the deletion must not bring them back. */
  readonly #gone = new Set<string>();

  constructor(
    private readonly api: Pick<RestApi, 'sessions'>,
    private readonly limit = 50,
  ) {}

  /** Fetch the list now (concurrent calls share one request). */
  refresh(): Promise<void> {
    this.#inFlight ??= this.#load().finally(() => (this.#inFlight = null));
    return this.#inFlight;
  }

  async #load(): Promise<void> {
    try {
      const page = await this.api.sessions({ limit: this.limit });
      this.sessions = page.sessions.filter((session) => !this.#gone.has(session.sessionId));
      this.error = null;
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
    } finally {
      this.loaded = true;
    }
  }

  /** Show a session right away (just created, or its status changed here) until the next poll confirms it. */
  upsert(info: SessionInfo): void {
    if (this.#gone.has(info.sessionId)) return;
    const known = this.sessions.some((session) => session.sessionId === info.sessionId);
    if (!known) this.sessions = [info, ...this.sessions];
    else this.sessions = this.sessions.map((session) => (session.sessionId === info.sessionId ? { ...session, ...info } : session));
  }

  /** Drop a deleted session at once, and for good: ids are never reused. */
  remove(sessionId: string): void {
    this.#gone.add(sessionId);
    if (this.sessions.some((session) => session.sessionId === sessionId)) {
      this.sessions = this.sessions.filter((session) => session.sessionId !== sessionId);
    }
  }

  /** Poll every `intervalMs` until stopped; the first load happens at once. */
  start(intervalMs = 4000): void {
    this.stop();
    void this.refresh();
    this.#timer = setInterval(() => {
      // A hidden tab has no one to show the list to.
      if (typeof document === 'undefined' || document.visibilityState !== 'hidden') void this.refresh();
    }, intervalMs);
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}
