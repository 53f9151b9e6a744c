import type { DiffPart } from './edit-script.js';

/** How well a cut between two characters reads as the edge of a change: line ends best, then spaces, then punctuation. */
function boundaryScore(left: string | undefined, right: string | undefined): number {
  if (left === undefined || right === undefined) return 3;
  if (left === '\n' || right === '\n') return 3;
  if (/\s/.test(left) || /\s/.test(right)) return 2;
  if (/[^\p{L}\p{N}]/u.test(left) || /[^\p{L}\p{N}]/u.test(right)) return 1;
  return 0;
}

/** How far a change may slide: enough for a JSON key or a word, cheap on long texts. */
const MAX_SLIDE = 64;

/**
 * A pure insertion or deletion between two equal runs can often be placed in several spots with
 * the same meaning (`"metric[",↵  "lang": "fr]"` or `"metric"[,↵  "lang": "fr"]`). Slide each to
 * the spot whose edges fall on line ends, spaces or punctuation, as a reader would mark it.
 */
export function slideToBoundaries(parts: DiffPart[]): DiffPart[] {
  const out = parts.map((part) => ({ ...part }));
  for (let i = 1; i < out.length - 1; i++) {
    const before = out[i - 1]!;
    const change = out[i]!;
    const after = out[i + 1]!;
    if (change.op === 'equal' || before.op !== 'equal' || after.op !== 'equal') continue;
    const text = change.text;
    // Left: the change may move left while the equal text before it ends with the change's last character.
    let leftRoom = 0;
    while (leftRoom < MAX_SLIDE && leftRoom < before.text.length && before.text[before.text.length - 1 - leftRoom] === text[text.length - 1 - (leftRoom % text.length)]) leftRoom++;
    let rightRoom = 0;
    while (rightRoom < MAX_SLIDE && rightRoom < after.text.length && after.text[rightRoom] === text[rightRoom % text.length]) rightRoom++;
    if (leftRoom === 0 && rightRoom === 0) continue;
    // Every position as one string: [equal before][change][equal after] with the change starting at `start`.
    const joined = before.text + text + after.text.slice(0, rightRoom);
    const origin = before.text.length;
    let best = origin;
    let bestScore = -1;
    for (let start = origin - leftRoom; start <= origin + rightRoom; start++) {
      const end = start + text.length;
      const score = boundaryScore(joined[start - 1], joined[start]) + boundaryScore(joined[end - 1], end < joined.length ? joined[end] : after.text[rightRoom]);
      if (score > bestScore) [best, bestScore] = [start, score];
    }
    if (best === origin) continue;
    before.text = joined.slice(0, best);
    change.text = joined.slice(best, best + text.length);
    after.text = joined.slice(best + text.length) + after.text.slice(rightRoom);
  }
  return out.filter((part) => part.text !== '');
}
