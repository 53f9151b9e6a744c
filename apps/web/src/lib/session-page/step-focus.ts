import { tick } from 'svelte';
import { rowHasSteps } from '$lib/chain/virtual-rows/row-of-step.js';
import type { VirtualChain } from '$lib/chain/virtual-rows/virtual-chain.svelte.js';

export type StepMove = 'next' | 'previous' | 'first' | 'last';

/** The step elements inside an element that can take focus, top to bottom (folded ones are not rendered). */
export function stepElements(container: ParentNode): HTMLElement[] {
  return Array.from(container.querySelectorAll<HTMLElement>('[data-step-id]'));
}

/** The step that holds the focus (the card itself or a control inside it). */
export function focusedStep(container: ParentNode, active: Element | null): HTMLElement | null {
  const step = active?.closest<HTMLElement>('[data-step-id]') ?? null;
  return step && container.contains(step) ? step : null;
}

/** The nearest row from `from` (inclusive) in direction `step` that has step cards, or -1. */
function rowWithSteps(chain: VirtualChain, isFoldOpen: (rowKey: string) => boolean, from: number, step: 1 | -1): number {
  const rows = chain.rows;
  for (let index = from; index >= 0 && index < rows.length; index += step) if (rowHasSteps(rows[index]!, isFoldOpen)) return index;
  return -1;
}

function focusOn(target: HTMLElement): HTMLElement {
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'nearest', behavior: 'auto' });
  return target;
}

/**
 * Move focus to the next / previous / first / last step of a virtualized chain. Inside a row
 * (a sub-agent batch, an open fold) it moves card by card; past the row's edge it walks the rows
 * (drawn or not), has the list draw the next one and focuses its first (or last) card. From
 * nothing focused, "next" starts at the first step and "previous" at the last.
 * Returns null at once when there is nowhere to go, else the move, resolving with the step focused.
 */
export function moveStepFocus(chain: VirtualChain, isFoldOpen: (rowKey: string) => boolean, active: Element | null, where: StepMove): Promise<HTMLElement | null> | null {
  const container = chain.element;
  if (!container) return null;
  const current = focusedStep(container, active);
  const currentRow = current ? chain.rowIndexOf(current) : -1;
  const forward = where === 'next' || where === 'first';
  if (current && currentRow >= 0 && (where === 'next' || where === 'previous')) {
    const inRow = stepElements(chain.rowElement(currentRow) ?? container);
    const sibling = inRow[inRow.indexOf(current) + (forward ? 1 : -1)];
    if (sibling) return Promise.resolve(focusOn(sibling));
  }
  let targetRow: number;
  if (where === 'first' || (where === 'next' && currentRow < 0)) targetRow = rowWithSteps(chain, isFoldOpen, 0, 1);
  else if (where === 'last' || (where === 'previous' && currentRow < 0)) targetRow = rowWithSteps(chain, isFoldOpen, chain.rows.length - 1, -1);
  else targetRow = rowWithSteps(chain, isFoldOpen, currentRow + (forward ? 1 : -1), forward ? 1 : -1);
  // At either end of the chain the focus stays where it is.
  if (targetRow < 0) return current ? Promise.resolve(focusOn(current)) : null;
  return (async () => {
    const row = await chain.mount(targetRow, 'nearest');
    if (!row) return null;
    await tick();
    const cards = stepElements(row);
    const target = forward ? cards[0] : cards[cards.length - 1];
    return target ? focusOn(target) : null;
  })();
}
