// First: before any schema is built (see zod-jitless.ts).
import '$lib/app/zod-jitless.js';
import type { ClientInit } from '@sveltejs/kit';
import { TokenStore, tabStorage } from '$lib/access/token-store.js';
import { takeTokenFromAddress } from '$lib/access/token-intake.js';
import { takeShareFromAddress } from '$lib/sharing/share-intake.js';
import { ShareTokenStore } from '$lib/sharing/share-token-store.js';

/**
 * Before the router reads the address: keep `?token=` and a share link's `?share=` for the tab and
 * drop them from the address bar, so no route, history entry, screenshot or Referer carries them.
 * (Where the browser refuses session storage they cannot outlive this call: the page then asks
 * for a sign-in, or the link must be opened again.)
 */
export const init: ClientInit = () => {
  takeTokenFromAddress(window.location, window.history, new TokenStore(tabStorage()));
  takeShareFromAddress(window.location, window.history, new ShareTokenStore(tabStorage()));
};
