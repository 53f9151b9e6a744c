import type { ServerMessage } from '../messages.js';
import { SESSION_LIST_LIMITS, type SessionsWatching } from '../session-list.js';
import type { SessionInfo } from '../session.js';
import { InterthoughtError } from './interthought-error.js';
import { SUBSCRIBE_RETRY_MS } from './session-feeds.js';

/** Gets the whole list, newest first, each time it changes. */
export type SessionListListener = (sessions: readonly SessionInfo[]) => void;

export interface WatchSessionsOptions {
  /** How many of the newest sessions to follow (1–100; the server's default, 50, when no caller says). */
  limit?: number;
  /** Hears of a watch the server refused for good (e.g. `FORBIDDEN`); passing troubles are retried. */
  onError?: (error: InterthoughtError) => void;
}

/** What the list feed needs of the client. */
export interface SessionListDeps {
  isOpen(): boolean;
  isClosed(): boolean;
  /** Send `sessions.watch`; `onAnswer` runs synchronously with the answer, before any later frame. */
  watch(limit: number | undefined, onAnswer: (answer: SessionsWatching) => void): Promise<unknown>;
  unwatch(): void;
  listenerFailed(error: unknown): void;
}

/** Refusals worth asking again after a pause: the server was busy, or the answer was lost. */
const RETRIED_CODES: ReadonlySet<string> = new Set(['RATE_LIMITED', 'INTERNAL', 'TIMEOUT']);

/** Newest first, as the server lists sessions: by `createdAt`, then by id. */
export function newestFirst(a: SessionInfo, b: SessionInfo): number {
  return b.createdAt.localeCompare(a.createdAt) || b.sessionId.localeCompare(a.sessionId);
}

/**
 * The list of sessions as `sessions.watch` follows it, shared by every listener of one client:
 * replaced by each `sessions.watching` answer (the first, and the one after every reconnect),
 * then kept current by the `sessions.changed` / `sessions.removed` frames that follow, trimmed to
 * the newest `limit`. The last listener to stop unwatches.
 */
export class SessionListFeed {
  readonly #sessions = new Map<string, SessionInfo>();
  readonly #listeners = new Map<SessionListListener, WatchSessionsOptions>();
  #listed = false;
  /** A watch is queued or waiting for its answer. */
  #requested = false;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** The limit the current watch asked for (undefined: the server's default). */
  #limit: number | undefined;

  constructor(private readonly deps: SessionListDeps) {}

  /** The list so far, newest first (empty until the first answer). */
  get sessions(): SessionInfo[] {
    return [...this.#sessions.values()].sort(newestFirst);
  }

  /** Start following for `listener`; returns the function that stops. */
  attach(listener: SessionListListener, options: WatchSessionsOptions): () => void {
    const first = this.#listeners.size === 0;
    this.#listeners.set(listener, options);
    if (this.#listed) this.#call(listener, this.sessions);
    const wider = (this.#widestLimit() ?? SESSION_LIST_LIMITS.default) !== (this.#limit ?? SESSION_LIST_LIMITS.default);
    if (first || wider) this.#watch();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.#detach(listener);
    };
  }

  /** The connection (re)opened: the list is asked for again, unless a watch already waits to go out. */
  connected(): void {
    if (this.#listeners.size > 0 && !this.#requested) this.#watch();
  }

  /** The client was closed: nothing is retried. */
  stop(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
  }

  /** Apply a list frame (other frames are not its concern). */
  handle(frame: ServerMessage): void {
    if (!this.#listed) return;
    if (frame.type === 'sessions.changed') {
      this.#sessions.set(frame.session.sessionId, frame.session);
      this.#trim();
      this.#notify();
    } else if (frame.type === 'sessions.removed' && this.#sessions.delete(frame.sessionId)) {
      this.#notify();
    }
  }

  #detach(listener: SessionListListener): void {
    this.#listeners.delete(listener);
    if (this.#listeners.size > 0) return;
    this.stop();
    this.#sessions.clear();
    this.#listed = false;
    this.#limit = undefined;
    // Queued behind a watch still waiting for the connection, it goes out after it, in order.
    if (!this.deps.isClosed()) this.deps.unwatch();
  }

  /** What every listener asked for: the largest limit, counting no limit as the server's default; undefined when none gave one. */
  #widestLimit(): number | undefined {
    let widest: number | undefined;
    let anyDefault = false;
    for (const { limit } of this.#listeners.values()) {
      if (limit === undefined) anyDefault = true;
      else widest = Math.max(widest ?? 0, limit);
    }
    if (widest === undefined) return undefined;
    return anyDefault ? Math.max(widest, SESSION_LIST_LIMITS.default) : widest;
  }

  #watch(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    if (this.deps.isClosed()) return;
    this.#limit = this.#widestLimit();
    this.#requested = true;
    const settled = this.deps.watch(this.#limit, (answer) => {
      // An answer to a watch nobody follows any more must not come back as the list.
      if (this.#listeners.size > 0) this.#reset(answer.sessions);
    });
    settled.then(
      () => (this.#requested = false),
      (error: unknown) => {
        this.#requested = false;
        this.#failed(error);
      },
    );
  }

  #failed(error: unknown): void {
    if (!(error instanceof InterthoughtError) || this.#listeners.size === 0) return;
    // A dropped connection watches again once it is back (`connected`).
    if (error.code === 'DISCONNECTED') return;
    if (RETRIED_CODES.has(error.code)) {
      this.#retryTimer = setTimeout(() => {
        this.#retryTimer = undefined;
        if (this.#listeners.size > 0 && this.deps.isOpen()) this.#watch();
      }, SUBSCRIBE_RETRY_MS);
      return;
    }
    for (const { onError } of [...this.#listeners.values()]) {
      if (!onError) continue;
      try {
        onError(error);
      } catch (thrown) {
        this.deps.listenerFailed(thrown);
      }
    }
  }

  #reset(sessions: readonly SessionInfo[]): void {
    this.#sessions.clear();
    for (const session of sessions) this.#sessions.set(session.sessionId, session);
    this.#listed = true;
    this.#trim();
    this.#notify();
  }

  /** Keep the newest `limit`: a change to an older session must not grow the list for ever. */
  #trim(): void {
    const limit = this.#limit ?? SESSION_LIST_LIMITS.default;
    if (this.#sessions.size <= limit) return;
    for (const session of this.sessions.slice(limit)) this.#sessions.delete(session.sessionId);
  }

  #notify(): void {
    const sessions = this.sessions;
    for (const listener of [...this.#listeners.keys()]) this.#call(listener, sessions);
  }

  #call(listener: SessionListListener, sessions: readonly SessionInfo[]): void {
    try {
      listener(sessions);
    } catch (error) {
      this.deps.listenerFailed(error);
    }
  }
}
