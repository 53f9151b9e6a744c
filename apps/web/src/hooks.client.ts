import type { ClientInit } from '@sveltejs/kit';
import { TokenStore, tabStorage } from '$lib/access/token-store.js';
import { takeTokenFromAddress } from '$lib/access/token-intake.js';

/**
 * Before the router reads the address: keep `?token=` for the tab and drop it from the address
 * bar, so no route, history entry, screenshot or Referer carries it. (Where the browser refuses
 * session storage the token cannot outlive this call: the page then asks for it to be pasted.)
 */
export const init: ClientInit = () => {
  takeTokenFromAddress(window.location, window.history, new TokenStore(tabStorage()));
};
