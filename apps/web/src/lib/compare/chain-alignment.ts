import type { SessionState, Step } from '@interthought/protocol';

/*
 * Two chains side by side (PROTOCOL.md §26.5): the prefix they share (a fork's copies of its source's
 * steps, or two forks' copies of one source's), folded to one line, then rows aligned by index.
 */

/** One row after the shared prefix: the step each side has at this index, if any. */
export interface AlignedRow {
  index: number;
  a: Step | undefined;
  b: Step | undefined;
}

export interface ChainAlignment {
  /** How many leading steps the two chains have in common. */
  common: number;
  rows: AlignedRow[];
}

/** The steps of the current chain, root first. */
export function chainOf(state: SessionState): Step[] {
  return state.chain.flatMap((id) => state.steps.get(id) ?? []);
}

/** The same step on both sides: one is the other's copy, or both copy one original (§20.4 `copiedFrom`). */
export function sameStep(a: Step, b: Step): boolean {
  if (a.stepId === b.stepId) return true;
  if (b.copiedFrom?.stepId === a.stepId || a.copiedFrom?.stepId === b.stepId) return true;
  return a.copiedFrom !== undefined && a.copiedFrom.stepId === b.copiedFrom?.stepId;
}

/** Where the chains diverge, and the rows from there, aligned by the steps' index. */
export function alignChains(a: readonly Step[], b: readonly Step[]): ChainAlignment {
  let common = 0;
  while (common < a.length && common < b.length && sameStep(a[common]!, b[common]!)) common++;
  const rows: AlignedRow[] = [];
  for (let at = common; at < Math.max(a.length, b.length); at++) rows.push({ index: at, a: a[at], b: b[at] });
  return { common, rows };
}

/** The chain's last final answer: what the two sides are compared by. */
export function finalAnswerOf(chain: readonly Step[]): Step | undefined {
  return chain.findLast((step) => step.kind === 'final_answer');
}

/** Milliseconds the session has run so far (`SessionState.runTime`, §11.1), the open interval counted up to `now`. */
export function runTimeMs(state: SessionState, now: number): number | undefined {
  const runTime = state.runTime;
  if (runTime === undefined) return undefined;
  const open = runTime.runningSince === undefined ? 0 : Math.max(0, now - Date.parse(runTime.runningSince));
  return runTime.totalMs + open;
}
