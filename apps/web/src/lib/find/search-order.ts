import type { ChainLayout } from '$lib/chain/chain-rows.js';

/** One step find searches, in the order the chain shows it. */
export interface SearchEntry {
  stepId: string;
  /** Replaced by a correction: shown (when its fold is open) struck through; hits in it say so. */
  superseded: boolean;
  /** The sub-agent whose chain it is on (the delegate call's step id); undefined on the session's own chain. */
  scope: string | undefined;
}

/** The layout of a sub-agent's chain, once it started. */
export type ScopeLayout = (scope: string) => ChainLayout | undefined;

/**
 * Every step of the displayed chain, top to bottom, as find and the outline walk it: the rows'
 * steps, the steps folded into a run of thoughts, the superseded steps folded above the step that
 * replaced them (a demanding user expects to find what the agent wrote before a correction), and
 * each sub-agent's chain right after the delegate call that started it. Steps of branches not
 * shown (an earlier alternative the picker is not on) are not part of it: they are not on the page.
 */
export function searchOrder(layout: ChainLayout, scopeLayout: ScopeLayout, scope?: string, into: SearchEntry[] = []): SearchEntry[] {
  for (const row of layout.rows) {
    switch (row.type) {
      case 'step':
        into.push({ stepId: row.stepId, superseded: false, scope });
        break;
      case 'thoughts':
        for (const stepId of row.stepIds) into.push({ stepId, superseded: false, scope });
        break;
      case 'superseded':
        for (const stepId of row.stepIds) into.push({ stepId, superseded: true, scope });
        break;
      case 'subagents':
        for (const call of row.calls) {
          into.push({ stepId: call.stepId, superseded: false, scope });
          const nested = scopeLayout(call.stepId);
          if (nested) searchOrder(nested, scopeLayout, call.stepId, into);
        }
        break;
      default: {
        const unknown: never = row;
        void unknown;
      }
    }
  }
  return into;
}
