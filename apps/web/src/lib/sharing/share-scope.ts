import { sessionIdOfPath } from './share-intake.js';
import type { ShareTokenStore } from './share-token-store.js';

/** A share link the page presents: the session it opens and its token. */
export interface PresentedShare {
  sessionId: string;
  token: string;
}

/**
 * Which share link this tab presents to the server now. A link reaches one session only, so it is
 * presented while that session's page is open and not on any other page: the socket and every
 * REST call read it at each use, and `routeChanged` reopens the socket when the answer changes.
 */
export class ShareScope {
  readonly #changeListeners = new Set<() => void>();

  constructor(
    private readonly tokens: Pick<ShareTokenStore, 'tokenFor' | 'forget'>,
    /** The path of the page open now (`location.pathname`). */
    private readonly path: () => string,
  ) {}

  /** The link presented on this page, if the tab holds one for the session open. */
  get presented(): PresentedShare | undefined {
    const sessionId = sessionIdOfPath(this.path());
    const token = sessionId === undefined ? undefined : this.tokens.tokenFor(sessionId);
    return sessionId !== undefined && token !== undefined ? { sessionId, token } : undefined;
  }

  /** The token to present now (`?share=` on the socket, the share header on REST). */
  token(): string | undefined {
    return this.presented?.token;
  }

  /** Whether the tab holds a link to `sessionId` (its page then waits to hear the link's role). */
  holds(sessionId: string): boolean {
    return this.tokens.tokenFor(sessionId) !== undefined;
  }

  /** Forget the link presented now (it ended, and the user moves on). */
  forgetPresented(): void {
    const presented = this.presented;
    if (presented) this.tokens.forget(presented.sessionId);
  }

  /** Hear each page change (the socket then presents the other link, or none). Returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /** The page changed: reopen the socket if it should present another link, or none. */
  routeChanged(): void {
    for (const listener of this.#changeListeners) listener();
  }
}
