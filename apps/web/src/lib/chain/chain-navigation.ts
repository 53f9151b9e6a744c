import { createContext, tick } from 'svelte';
import type { SessionView } from './session-view.svelte.js';

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

/** Navigation over a timeline that draws every row: unfold the step's sub-agent panels, wait for the DOM, scroll. */
export function domChainNavigation(session: SessionView, container: () => HTMLElement | undefined): ChainNavigation {
  return {
    async reveal(stepId, options = {}) {
      session.reveal(stepId);
      await tick();
      const card = stepCard(container(), stepId);
      if (!card) return null;
      if (options.focus) card.focus({ preventScroll: true });
      card.scrollIntoView({ block: options.block ?? 'center', behavior: 'auto' });
      return card;
    },
  };
}
