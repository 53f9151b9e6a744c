/*
 * The globs of approval rules and breakpoints (PROTOCOL.md §25.4): `*` matches any run of
 * characters (also none), `?` exactly one, anything else itself; the whole string, case-sensitive.
 */

/** Whether `glob` matches all of `text`. Linear backtracking over the last `*`: no regular expression, no blow-up. */
export function globMatches(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (g < glob.length && (glob[g] === '?' || (glob[g] !== '*' && glob[g] === text[t]))) {
      g += 1;
      t += 1;
    } else if (g < glob.length && glob[g] === '*') {
      star = g;
      resume = t;
      g += 1;
    } else if (star !== -1) {
      g = star + 1;
      resume += 1;
      t = resume;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob[g] === '*') g += 1;
  return g === glob.length;
}
