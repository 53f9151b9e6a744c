/** One run of a diff. */
export interface DiffPart {
  op: 'equal' | 'insert' | 'delete';
  text: string;
}

export type EditOp = [DiffPart['op'], string];

/** Beyond this many edits a diff is no help to a reader: show "all deleted, all inserted". */
const MAX_EDITS = 1_000;

/**
 * The shortest edit script between two token lists (Myers, O((N+M)·D)): corrections are usually
 * small edits of long texts, so this stays fast where a full LCS table would not. Each round keeps
 * only the diagonals it can reach (2d + 3 of them), so memory is O(D²), not O((N+M)·D); and D is
 * capped, so a 10,000-character rewrite costs a bounded amount too.
 */
export function myers(a: readonly string[], b: readonly string[]): EditOp[] {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b);
    }
  }
  return [...a.map((token): EditOp => ['delete', token]), ...b.map((token): EditOp => ['insert', token])];
}

function backtrack(trace: Int32Array[], a: readonly string[], b: readonly string[]): EditOp[] {
  const ops: EditOp[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d > 0; d--) {
    const row = trace[d]!;
    const at = (k: number) => row[k + d + 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(['equal', a[--x]!]);
      y--;
    }
    if (down) ops.push(['insert', b[--y]!]);
    else ops.push(['delete', a[--x]!]);
  }
  while (x > 0 && y > 0) {
    ops.push(['equal', a[--x]!]);
    y--;
  }
  return ops.reverse();
}

/** Append a run, merged into the previous one when it has the same op. */
export function pushPart(parts: DiffPart[], op: DiffPart['op'], text: string): void {
  if (text === '') return;
  const last = parts[parts.length - 1];
  if (last && last.op === op) last.text += text;
  else parts.push({ op, text });
}

/**
 * The diff of two token lists as runs in reading order. Each changed stretch reads "deleted, then
 * inserted" rather than interleaving token by token; with `bridgeSpaces`, a lone space between two
 * changed words joins the change instead of splitting it.
 */
export function diffTokens(a: readonly string[], b: readonly string[], bridgeSpaces: boolean): DiffPart[] {
  // Common prefix and suffix are cheap to peel off and are most of a typical correction.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) endA--, endB--;

  const parts: DiffPart[] = [];
  pushPart(parts, 'equal', a.slice(0, start).join(''));
  const middle = myers(a.slice(start, endA), b.slice(start, endB));
  let deleted = '';
  let inserted = '';
  const flushChange = () => {
    pushPart(parts, 'delete', deleted);
    pushPart(parts, 'insert', inserted);
    deleted = '';
    inserted = '';
  };
  middle.forEach(([op, token], i) => {
    if (op === 'delete') deleted += token;
    else if (op === 'insert') inserted += token;
    else if (bridgeSpaces && /^\s+$/.test(token) && (deleted || inserted) && middle[i + 1] !== undefined && middle[i + 1]![0] !== 'equal') {
      deleted += token;
      inserted += token;
    } else {
      flushChange();
      pushPart(parts, 'equal', token);
    }
  });
  flushChange();
  pushPart(parts, 'equal', a.slice(endA).join(''));
  return parts;
}
