import { ASK_USER_TOOL, type SessionState, type Step } from '@interthought/protocol';
import type { ChainLayout, ChainRow } from '$lib/chain/chain-rows.js';

/** What the chain can be narrowed to: a step kind, or a trait a step of any kind may have. */
export const KIND_FILTERS = ['thought', 'action', 'tool_call', 'observation', 'final_answer', 'user_message', 'corrected', 'question'] as const;
export type KindFilter = (typeof KIND_FILTERS)[number];

/** Whether a step is one the filter shows. */
export function matchesKind(step: Step | undefined, filter: KindFilter): boolean {
  if (!step) return false;
  switch (filter) {
    case 'corrected':
      return step.correction !== undefined;
    case 'question':
      return step.kind === 'tool_call' && step.tool === ASK_USER_TOOL;
    default:
      return step.kind === filter;
  }
}

/**
 * The layout with only the steps the filter shows, each as its own row: a run of thoughts opens
 * (filtering for thoughts means wanting to read them), rows of other kinds are left out entirely
 * (every card keeps its "Step N", so the gaps show in the numbers), a batch of delegate calls stays
 * whole when its calls match (its sub-agents are drawn under them), and a fold of superseded steps
 * stays above the correction that replaced it when showing corrections. Pure: the full layout is
 * untouched, so clearing the filter shows it again exactly as it was.
 */
export function filterLayout(layout: ChainLayout, state: SessionState, filter: KindFilter): ChainLayout {
  const rows: ChainRow[] = [];
  const rowDepths: number[] = [];
  const path: string[] = [];
  const keep = (row: ChainRow, depth: number): void => {
    rows.push(row);
    rowDepths.push(depth);
  };
  const matches = (stepId: string): boolean => matchesKind(state.steps.get(stepId), filter);
  layout.rows.forEach((row, i) => {
    const depth = layout.rowDepths[i] ?? 0;
    switch (row.type) {
      case 'step':
        if (matches(row.stepId)) {
          keep(row, depth);
          path.push(row.stepId);
        }
        break;
      case 'thoughts':
        row.stepIds.forEach((stepId, offset) => {
          if (!matches(stepId)) return;
          keep({ type: 'step', key: stepId, stepId, readOnly: false }, depth + offset);
          path.push(stepId);
        });
        break;
      case 'superseded':
        if (filter === 'corrected') keep(row, depth);
        break;
      case 'subagents':
        if (row.calls.some((call) => matches(call.stepId))) {
          keep(row, depth);
          for (const call of row.calls) path.push(call.stepId);
        }
        break;
      default: {
        const unknown: never = row;
        void unknown;
      }
    }
  });
  return { rows, path, viewingEarlierBranch: layout.viewingEarlierBranch, rowDepths };
}
