import type { I18n } from './i18n.svelte.js';

/**
 * A session status as the user reads it. A status this version does not know (a newer server's)
 * is shown as it is named: the protocol asks clients to tolerate one (PROTOCOL.md §5.1).
 */
export function statusLabel(i18n: I18n, status: string): string {
  const key = `status.${status}`;
  return i18n.has(key) ? i18n.t(key) : status;
}
