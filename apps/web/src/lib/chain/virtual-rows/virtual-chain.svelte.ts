import { tick } from 'svelte';
import type { ChainRow } from '../chain-rows.js';

/** What the timeline's virtualizer (virtua's `Virtualizer`) offers: scrolling to a row it may not have drawn. */
export interface RowScroller {
  scrollToIndex(index: number, options?: { align?: 'start' | 'center' | 'end' | 'nearest'; offset?: number }): void;
}

/** A row the list must keep in the DOM, by key, with the index it was last found at. */
interface Pin {
  key: string;
  hint: number;
}

/** How many frames a row may take to be drawn where a scroll put it, before a reveal gives up waiting. */
const FRAMES_TO_SETTLE = 30;

const nextFrame = () => new Promise<void>((resolve) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => resolve()) : setTimeout(resolve, 16)));

function indexOfKey(rows: readonly ChainRow[], pin: Pin): number {
  if (rows[pin.hint]?.key === pin.key) return pin.hint;
  return rows.findIndex((row) => row.key === pin.key);
}

/**
 * The root chain's rows as the virtualized timeline draws them: only rows near the viewport are
 * in the DOM. It owns which rows must stay mounted whatever the scroll (the one holding the
 * focus, the one being revealed), and how to draw a row anywhere on the chain and get its element.
 */
export class VirtualChain {
  /** The row holding the keyboard focus: kept mounted, so focus is never lost to the page body while it is scrolled away. */
  #focused = $state.raw<Pin | null>(null);
  /** The row a reveal or a keyboard move is bringing on screen. */
  #target = $state.raw<Pin | null>(null);
  #rows: () => readonly ChainRow[];
  #alsoKeep: () => number;
  /** The rows' container (the element with `role=list`), once mounted. */
  element: HTMLElement | undefined = $state();
  scroller: RowScroller | undefined;

  /**
   * `alsoKeep` names one more row to keep mounted (-1: none): the page passes the row of the step
   * cursor's step, whose card is the chain's one tab stop and must be there for Tab to land on.
   */
  constructor(rows: () => readonly ChainRow[], alsoKeep: () => number = () => -1) {
    this.#rows = rows;
    this.#alsoKeep = alsoKeep;
  }

  get rows(): readonly ChainRow[] {
    return this.#rows();
  }

  /** The row indexes the virtualizer keeps mounted, in order. Recomputed when the rows or the pins change, never per delta. */
  readonly keepMounted = $derived.by(() => {
    const rows = this.#rows();
    const indexes = new Set<number>();
    for (const pin of [this.#focused, this.#target]) {
      if (!pin) continue;
      const index = indexOfKey(rows, pin);
      if (index >= 0) indexes.add(index);
    }
    const extra = this.#alsoKeep();
    if (extra >= 0 && extra < rows.length) indexes.add(extra);
    return [...indexes].sort((a, b) => a - b);
  });

  /** The focus went into a row (the timeline listens to `focusin`). */
  focusedRow(index: number): void {
    const key = this.#rows()[index]?.key;
    if (key === undefined || (this.#focused?.key === key && this.#focused.hint === index)) return;
    this.#focused = { key, hint: index };
  }

  /** The element of the row drawn at `index`, if it is in the DOM. */
  rowElement(index: number): HTMLElement | null {
    return this.element?.querySelector<HTMLElement>(`:scope > * > [data-row="${index}"]`) ?? null;
  }

  /** The row index an element is drawn in, or -1. */
  rowIndexOf(element: Element | null): number {
    const row = element?.closest<HTMLElement>('[data-row]');
    if (!row || !this.element?.contains(row)) return -1;
    return Number(row.dataset.row);
  }

  /**
   * Draw the row at `index` (wherever it is), scroll it into view and resolve with its element
   * once it is in the DOM; null if there is no such row. The row stays mounted until another is the target.
   */
  async mount(index: number, align: 'start' | 'center' | 'end' | 'nearest' = 'nearest'): Promise<HTMLElement | null> {
    const key = this.#rows()[index]?.key;
    if (key === undefined) return null;
    this.#target = { key, hint: index };
    await tick();
    // Kept mounted, the row is drawn at once at its estimated place; the scroll then measures the rows around it.
    let element = this.rowElement(index);
    const scroller = !element || !this.#onScreen(element) ? this.scroller : undefined;
    scroller?.scrollToIndex(index, { align });
    let frames = 0;
    for (; frames < FRAMES_TO_SETTLE && !element; frames++) {
      await nextFrame();
      element = this.rowElement(index);
    }
    // The list learns of a scroll from its scroll event, in the next frame: until then it still
    // draws the rows of where the scroll was. Resolving after that frame, the caller (a keyboard
    // move that focuses the card) finds the list drawing the place it went to.
    if (scroller && frames === 0) {
      await nextFrame();
      element = this.rowElement(index) ?? element;
    }
    return element;
  }

  /**
   * Scroll `container` to its end through the list: the list then draws the last rows for the
   * place it is going to, where a plain scroll to the bottom (many a second while a chain streams)
   * leaves it drawing rows for where the scroll was. What sits below the rows is scrolled past too.
   */
  scrollToEnd(container: HTMLElement): boolean {
    const list = this.element;
    const count = this.#rows().length;
    if (!list || !this.scroller || count === 0) return false;
    const listEnd = list.getBoundingClientRect().bottom - container.getBoundingClientRect().top + container.scrollTop;
    this.scroller.scrollToIndex(count - 1, { align: 'end', offset: Math.max(0, container.scrollHeight - listEnd) });
    return true;
  }

  #onScreen(element: HTMLElement): boolean {
    const box = element.getBoundingClientRect();
    return box.height > 0 && box.bottom > 0 && box.top < (typeof window === 'undefined' ? 0 : window.innerHeight);
  }
}
