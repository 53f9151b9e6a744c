import { shareStanding, type ShareGrant } from '@interthought/protocol';
import type { SessionService } from '../core/session-service.js';
import { ShareTokens } from './share-tokens.js';

/** A presented link, checked: what it grants, or why it does not work (for the client, never quoting the token). */
export type CheckedShare = { grant: ShareGrant } | { refusal: string };

/**
 * Share links as the server hands them out and takes them back (PROTOCOL.md §21.3): tokens signed
 * with the configured key or the store's, and checked against the log of the session they open.
 */
export class ShareLinks {
  #tokens: Promise<ShareTokens> | undefined;

  constructor(
    private readonly sessions: Pick<SessionService, 'accessFacts' | 'sharingKey'>,
    private readonly secret: string | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  async sign(grant: ShareGrant): Promise<string> {
    return (await this.#signer()).sign(grant);
  }

  /** The signature first (a forged link costs no store read), then the session's log: revoked, expired, deleted. */
  async check(token: string): Promise<CheckedShare> {
    const grant = (await this.#signer()).read(token);
    if (grant === undefined) return { refusal: 'The share link is not valid: it was not made by this server, or it was cut short when copied.' };
    const facts = await this.sessions.accessFacts(grant.sessionId);
    if (facts === undefined) return { refusal: 'The share link is for a session that was deleted.' };
    const standing = shareStanding(grant, grant.sessionId, facts.shares, this.now());
    if (standing === 'revoked') return { refusal: 'The share link was revoked by the session’s owner.' };
    if (standing === 'expired') return { refusal: 'The share link has expired; ask the session’s owner for a new one.' };
    return { grant };
  }

  #signer(): Promise<ShareTokens> {
    this.#tokens ??= (this.secret === undefined ? this.sessions.sharingKey() : Promise.resolve(this.secret)).then((key) => new ShareTokens(key));
    // A store that failed to give its key is asked again next time.
    this.#tokens.catch(() => (this.#tokens = undefined));
    return this.#tokens;
  }
}

/** The share token a request presents: the header `X-Interthought-Share` or `?share=` (a browser's WebSocket). */
export function presentedShareToken(headers: Record<string, string | string[] | undefined>, query: unknown): string | undefined {
  const header = headers['x-interthought-share'];
  if (typeof header === 'string' && header !== '') return header;
  const share = (query as Record<string, unknown> | undefined)?.share;
  return typeof share === 'string' && share !== '' ? share : undefined;
}

/** The web UI's page of the session with the link's token: it opens without an account. */
export function shareUrl(base: string, sessionId: string, token: string): string {
  return `${base}/sessions/${encodeURIComponent(sessionId)}?share=${encodeURIComponent(token)}`;
}
