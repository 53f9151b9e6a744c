import { createContext, tick } from 'svelte';
import type { SessionView } from './session-view.svelte.js';
import { rowIndexOfStep } from './virtual-rows/row-of-step.js';
import type { VirtualChain } from './virtual-rows/virtual-chain.svelte.js';

export interface RevealOptions {
  /** Move the keyboard focus to the step's card too (default false: only scroll). */
  focus?: boolean;
  /** Where the step lands in the viewport (default 'center'). */
  block?: ScrollLogicalPosition;
}

/**
 * How the page brings any step of the chain on screen: the step may be folded, inside a closed
 * sub-agent panel or (on a long chain) not rendered at all. Find, the outline, keyboard moves and
 * "go to the waiting call" all go through this one door, so none of them has to know how the
 * timeline draws its rows.
 */
export interface ChainNavigation {
  /** Bring the step into view (unfolding what hides it) and resolve with its card once it is drawn; null if the step is not on the displayed chain. */
  reveal(stepId: string, options?: RevealOptions): Promise<HTMLElement | null>;
}

/** `useChainNavigation()` reads what the session page gave its chain with `provideChainNavigation()`. */
export const [useChainNavigation, provideChainNavigation] = createContext<ChainNavigation>();

/** The card of a step inside `container`, if it is drawn. */
export function stepCard(container: ParentNode | undefined, stepId: string): HTMLElement | null {
  return container?.querySelector<HTMLElement>(`[data-step-id="${CSS.escape(stepId)}"]`) ?? null;
}

/**
 * Navigation over the virtualized timeline: find the row that holds the step (a sub-agent's step:
 * the row of its delegate call), open what folds it (a run of thoughts, superseded steps, the
 * sub-agent panels around it), have the list draw that row and scroll it on screen, then wait for
 * the card itself and place it.
 */
export function virtualChainNavigation(session: SessionView, chain: VirtualChain): ChainNavigation {
  let hint = -1;
  return {
    async reveal(stepId, options = {}) {
      const rows = session.layout.rows;
      const index = rowIndexOfStep(rows, session.state, stepId, hint);
      if (index < 0) return null;
      hint = index;
      const row = rows[index]!;
      if ((row.type === 'thoughts' || row.type === 'superseded') && !session.isFoldOpen(row.key)) session.setFoldOpen(row.key, true);
      session.reveal(stepId);
      const rowElement = await chain.mount(index, options.block === 'nearest' ? 'nearest' : 'center');
      if (!rowElement) return null;
      await tick();
      const card = stepCard(rowElement, stepId);
      if (!card) return null;
      if (options.focus) card.focus({ preventScroll: true });
      card.scrollIntoView({ block: options.block ?? 'center', behavior: 'auto' });
      return card;
    },
  };
}
