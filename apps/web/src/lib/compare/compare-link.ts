/** The compare view of two sessions (`/compare?a=…&b=…`): `a` on the left, usually the original. */
export function compareHref(a: string, b: string): string {
  return `/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`;
}
