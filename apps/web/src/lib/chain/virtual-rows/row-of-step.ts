import type { SessionState } from '@interthought/protocol';
import type { ChainRow } from '../chain-rows.js';

/** The step of the root's chain a step hangs under: itself, or the delegate call that started its (outermost) sub-agent. */
export function rootStepOf(state: Readonly<SessionState>, stepId: string): string {
  let current = stepId;
  // A sub-agent's step names its delegate call as its scope; that call may itself be in a sub-agent.
  for (let guard = 0; guard < 64; guard++) {
    const scope = state.steps.get(current)?.scope;
    if (scope === undefined) return current;
    current = scope;
  }
  return current;
}

/** Whether the row draws (or folds) this root-chain step. */
export function rowHolds(row: ChainRow, rootStepId: string): boolean {
  switch (row.type) {
    case 'step':
      return row.stepId === rootStepId;
    case 'subagents':
      return row.calls.some((call) => call.stepId === rootStepId);
    case 'superseded':
    case 'thoughts':
      return row.stepIds.includes(rootStepId);
  }
}

/**
 * The index of the row that holds a step (a sub-agent's: the row of its delegate call), or -1 when
 * it is not on the displayed chain. `hint` is looked at first: the row a caller found last time
 * is where the step usually still is, so the common case costs nothing on a long chain.
 */
export function rowIndexOfStep(rows: readonly ChainRow[], state: Readonly<SessionState>, stepId: string, hint = -1): number {
  const rootStepId = rootStepOf(state, stepId);
  const hinted = rows[hint];
  if (hinted && rowHolds(hinted, rootStepId)) return hint;
  // Rows follow the path in order and a step row's key is its id: a step's index on the chain is close to its row.
  const index = state.steps.get(rootStepId)?.index ?? 0;
  const guess = Math.min(index, rows.length - 1);
  for (let offset = 0; offset < rows.length; offset++) {
    const before = guess - offset;
    const after = guess + offset;
    if (before >= 0 && rowHolds(rows[before]!, rootStepId)) return before;
    if (offset > 0 && after < rows.length && rowHolds(rows[after]!, rootStepId)) return after;
    if (before < 0 && after >= rows.length) break;
  }
  return -1;
}

/** Whether a row has step cards to move the focus to (a closed fold has none). */
export function rowHasSteps(row: ChainRow, isFoldOpen: (rowKey: string) => boolean): boolean {
  return row.type === 'step' || row.type === 'subagents' || isFoldOpen(row.key);
}
