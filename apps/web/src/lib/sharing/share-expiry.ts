/** How long a new share link lasts, as the dialog offers it. */
export type ShareExpiry = 'never' | 'hour' | 'day' | 'week';

export const SHARE_EXPIRIES: readonly ShareExpiry[] = ['never', 'hour', 'day', 'week'];

const SECONDS: Record<ShareExpiry, number | undefined> = {
  never: undefined,
  hour: 60 * 60,
  day: 24 * 60 * 60,
  week: 7 * 24 * 60 * 60,
};

/** The `expiresInSec` of `session.share` for a choice (undefined: until revoked). */
export function expiresInSec(expiry: ShareExpiry): number | undefined {
  return SECONDS[expiry];
}
