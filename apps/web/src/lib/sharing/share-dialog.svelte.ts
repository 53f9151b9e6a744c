import type { InterthoughtClient, ShareRole } from '@interthought/protocol';
import type { Announcer } from '$lib/app/announcer.svelte.js';
import { describeError, type ErrorText } from '$lib/app/error-text.js';
import type { I18n } from '$lib/i18n/index.js';
import { expiresInSec, type ShareExpiry } from './share-expiry.js';

/** A link just made: its address (with the token, shown this once) and what it grants. */
export interface CreatedLink {
  shareId: string;
  url: string;
  role: ShareRole;
  expiresAt: string | undefined;
}

export interface ShareDialogDeps {
  client: Pick<InterthoughtClient, 'shareSession' | 'unshareSession'>;
  i18n: I18n;
  announcer: Pick<Announcer, 'announce'>;
  /** The page's origin, for a link the server gave as a path. */
  origin: string;
}

/**
 * The Share dialog of one session: the role and expiry of the next link, making it
 * (`session.share`, whose answer is the only place its token ever appears) and revoking links
 * (`session.unshare`). The list of links itself is the session's state (`share.created` /
 * `share.revoked`), so every owner's tab shows the same list.
 */
export class ShareDialogState {
  #open = $state(false);
  #role = $state<ShareRole>('viewer');
  #expiry = $state<ShareExpiry>('never');
  #creating = $state(false);
  #created = $state.raw<CreatedLink | null>(null);
  /** The share being revoked, while its request waits. */
  #revoking = $state<string | null>(null);
  #error = $state.raw<ErrorText | null>(null);

  constructor(
    private readonly deps: ShareDialogDeps,
    readonly sessionId: string,
  ) {}

  get open(): boolean {
    return this.#open;
  }
  get role(): ShareRole {
    return this.#role;
  }
  get expiry(): ShareExpiry {
    return this.#expiry;
  }
  get creating(): boolean {
    return this.#creating;
  }
  get created(): CreatedLink | null {
    return this.#created;
  }
  get revoking(): string | null {
    return this.#revoking;
  }
  get error(): ErrorText | null {
    return this.#error;
  }

  show(): void {
    this.#open = true;
    this.#error = null;
  }

  /** Close it; the link made stays shown only while it is open (its token is not kept anywhere). */
  close(): void {
    this.#open = false;
    this.#created = null;
    this.#error = null;
  }

  setRole(role: ShareRole): void {
    this.#role = role;
  }

  setExpiry(expiry: ShareExpiry): void {
    this.#expiry = expiry;
  }

  /** Make a link with the chosen role and expiry; resolves true once it is shown. */
  async create(): Promise<boolean> {
    if (this.#creating) return false;
    this.#creating = true;
    this.#error = null;
    try {
      const shared = await this.deps.client.shareSession(this.sessionId, this.#role, expiresInSec(this.#expiry));
      this.#created = {
        shareId: shared.shareId,
        url: new URL(shared.url, this.deps.origin).href,
        role: shared.role,
        expiresAt: shared.expiresAt,
      };
      this.deps.announcer.announce(this.deps.i18n.t('share.announceCreated'));
      return true;
    } catch (error) {
      this.#error = describeError(error, this.deps.i18n);
      return false;
    } finally {
      this.#creating = false;
    }
  }

  /** Revoke a link: whoever holds it loses the session at once. */
  async revoke(shareId: string): Promise<boolean> {
    if (this.#revoking !== null) return false;
    this.#revoking = shareId;
    this.#error = null;
    try {
      await this.deps.client.unshareSession(this.sessionId, shareId);
      if (this.#created?.shareId === shareId) this.#created = null;
      this.deps.announcer.announce(this.deps.i18n.t('share.announceRevoked'));
      return true;
    } catch (error) {
      this.#error = describeError(error, this.deps.i18n);
      return false;
    } finally {
      this.#revoking = null;
    }
  }
}
