import type { HitRef } from './find-index.js';
import type { TextMatcher } from './text-matcher.js';

/** The names the page's `::highlight()` rules style: every hit drawn, and the current one. */
export const HIT_HIGHLIGHT = 'interthought-find-hit';
export const CURRENT_HIGHLIGHT = 'interthought-find-current';

/** Whether the browser paints CSS Custom Highlights (Chromium does); elsewhere hits are reached, not painted. */
export function highlightsSupported(): boolean {
  return typeof CSS !== 'undefined' && 'highlights' in CSS && typeof Highlight === 'function';
}

/**
 * The text nodes of a card that show its step's text, in order: its own body, tool name, notes;
 * not the labels its header adds ("Thought", "Step 3"), its buttons, nor a card nested in it.
 */
function textNodesOf(card: HTMLElement): Text[] {
  const nodes: Text[] = [];
  const walker = document.createTreeWalker(card, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      if (node.nodeType === Node.TEXT_NODE) return NodeFilter.FILTER_ACCEPT;
      const element = node as Element;
      if (element === card) return NodeFilter.FILTER_SKIP;
      if (element.hasAttribute('data-step-id') || element.matches('button, textarea, input, svg, [aria-hidden="true"]')) return NodeFilter.FILTER_REJECT;
      // The header's line: only the tool's name is the step's text.
      if (element.parentElement?.classList.contains('meta') && !element.classList.contains('tool')) return NodeFilter.FILTER_REJECT;
      return NodeFilter.FILTER_SKIP;
    },
  });
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) nodes.push(node as Text);
  return nodes;
}

/** The ranges of every hit in a card, in the order they are drawn. Text split over nodes (a bold word) is matched across them. */
export function hitRangesIn(card: HTMLElement, matcher: TextMatcher): Range[] {
  const nodes = textNodesOf(card);
  const starts: number[] = [];
  let text = '';
  for (const node of nodes) {
    starts.push(text.length);
    text += node.data;
  }
  const locate = (offset: number, isEnd: boolean): [Text, number] => {
    // The last node starting at or before the offset (an end exactly at a boundary stays in the node before it).
    let low = 0;
    let high = nodes.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      const start = starts[middle]!;
      if (start < offset || (!isEnd && start === offset)) low = middle;
      else high = middle - 1;
    }
    return [nodes[low]!, offset - starts[low]!];
  };
  return matcher.ranges(text).map(([start, end]) => {
    const range = document.createRange();
    range.setStart(...locate(start, false));
    range.setEnd(...locate(end, true));
    return range;
  });
}

export interface PaintRequest {
  container: HTMLElement;
  matcher: TextMatcher;
  /** Whether the index counts hits in this step (a card without any is not walked). */
  hasHits: (stepId: string) => boolean;
  current: HitRef | null;
}

/**
 * Paints the hits of the cards drawn near the viewport (a screen above and below), the current
 * one in its own highlight, and returns the current hit's range when its card is drawn. Only
 * Range objects are made: the step text in the DOM is never touched, so nothing fights Svelte or
 * the markdown renderer. Run again whenever cards mount, redraw or scroll into view.
 */
export function paintHits({ container, matcher, hasHits, current }: PaintRequest): Range | null {
  if (!highlightsSupported()) return null;
  const all = new Highlight();
  const currentHighlight = new Highlight();
  // Drawn over the other hits where both cover the same text.
  currentHighlight.priority = 1;
  let currentRange: Range | null = null;
  const margin = window.innerHeight;
  for (const card of container.querySelectorAll<HTMLElement>('[data-step-id]')) {
    const stepId = card.dataset.stepId ?? '';
    if (!hasHits(stepId)) continue;
    const isCurrent = current?.stepId === stepId;
    if (!isCurrent) {
      const box = card.getBoundingClientRect();
      if (box.bottom < -margin || box.top > 2 * margin || box.height === 0) continue;
    }
    const ranges = hitRangesIn(card, matcher);
    for (const range of ranges) all.add(range);
    if (isCurrent && ranges.length) {
      currentRange = ranges[Math.min(current.ordinal, ranges.length - 1)]!;
      currentHighlight.add(currentRange);
    }
  }
  CSS.highlights.set(HIT_HIGHLIGHT, all);
  CSS.highlights.set(CURRENT_HIGHLIGHT, currentHighlight);
  return currentRange;
}

export function clearHits(): void {
  if (!highlightsSupported()) return;
  CSS.highlights.delete(HIT_HIGHLIGHT);
  CSS.highlights.delete(CURRENT_HIGHLIGHT);
}

/** The step whose card the user is at: the focused one, else the first drawn below the top of the viewport. */
export function stepAtViewport(container: HTMLElement, active: Element | null, top = 0): string | undefined {
  const focused = active?.closest<HTMLElement>('[data-step-id]');
  if (focused && container.contains(focused)) return focused.dataset.stepId;
  for (const card of container.querySelectorAll<HTMLElement>('[data-step-id]')) {
    const box = card.getBoundingClientRect();
    if (box.height > 0 && box.bottom > top) return card.dataset.stepId;
  }
  return undefined;
}

/** Whether the range is inside the window, below what covers its top (the sticky header). */
export function rangeInView(range: Range, top = 0): boolean {
  const box = range.getBoundingClientRect();
  return box.height > 0 && box.top >= top && box.bottom <= window.innerHeight;
}

/** Scroll the hit to the middle of the window (a long step's hit may be far from its card's centre). */
export function scrollRangeIntoView(range: Range): void {
  range.startContainer.parentElement?.scrollIntoView({ block: 'center', behavior: 'auto' });
}
