/**
 * One tab stop per step (WAI-ARIA "feed" of `article`s, with a roving tabindex).
 *
 * A step card (`[data-step-id]`) is one stop: the current step's card has tabindex 0, the others
 * -1. What is inside a card (Correct, copy, the approval buttons, links in its text) is not a tab
 * stop until the card is *entered*: Enter or → on the card moves into it, ←/→ (or Tab) go through
 * its controls, Esc goes back to the card. Tab from a card, or from its last control, leaves the
 * chain for what follows it. Screen readers still reach every control: nothing is hidden or
 * inert, only left out of the Tab sequence.
 *
 * The browser's own Tab order is used wherever this changes nothing (the rail, dialogs, forms).
 */
import { isTypingTarget } from './shortcut-keys.js';

/** What a step's card is marked with. */
export const CARD_SELECTOR = '[data-step-id]';

const FOCUSABLE = 'a[href], button, input, select, textarea, summary, [tabindex], [contenteditable=""], [contenteditable="true"]';

/** The card an element is or is in, if any. */
export function cardOf(element: Element | null): HTMLElement | null {
  return element?.closest<HTMLElement>(CARD_SELECTOR) ?? null;
}

/** Whether the element is a step card itself (not a control inside one). */
export function isStepCard(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && target.matches(CARD_SELECTOR);
}

/** Whether Tab could stop on the element at all (the browser's rules, as far as they matter here). */
function tabbable(element: Element): element is HTMLElement {
  if (!(element instanceof HTMLElement) || !element.matches(FOCUSABLE)) return false;
  if (element.tabIndex < 0 || (element as HTMLButtonElement).disabled) return false;
  if (element instanceof HTMLAnchorElement && !element.hasAttribute('href')) return false;
  if (element instanceof HTMLInputElement && element.type === 'hidden') return false;
  if (element.closest('[inert]')) return false;
  return element.checkVisibility({ visibilityProperty: true });
}

/** The controls of a card that can take focus, in order (a card holds no other card). */
export function cardControls(card: HTMLElement): HTMLElement[] {
  return Array.from(card.querySelectorAll(FOCUSABLE)).filter((element): element is HTMLElement => element !== card && tabbable(element));
}

/** The last element inside `element` in document order (itself when empty). */
function lastDescendant(element: Element): Element {
  let last = element;
  while (last.lastElementChild) last = last.lastElementChild;
  return last;
}

/**
 * Where Tab (or Shift+Tab) should move the focus from `active` under the one-stop-per-step rule,
 * or null when the browser's own order gives the same element (it then moves the focus itself).
 * The inside of a card that is not entered is stepped over whole, so a Tab costs the same on a
 * chain of 10 or 10,000 steps.
 */
export function nextTabStop(active: Element, backwards: boolean): HTMLElement | null {
  // A modal dialog keeps the focus inside itself: none of this applies there.
  if (active.closest('dialog[open], [aria-modal="true"]')) return null;
  const activeCard = cardOf(active);
  const entered = activeCard && activeCard !== active ? activeCard : null;
  // With no card in the page marked as the stop (its step is not drawn), the first card met is one.
  const fallbackCard = document.querySelector(`${CARD_SELECTOR}[tabindex="0"]`) ? null : document.querySelector<HTMLElement>(CARD_SELECTOR);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT);
  walker.currentNode = active;
  /** Whether the walk stepped over something the browser's own order would have stopped at. */
  let diverged = false;
  for (let node = step(walker, backwards); node; node = step(walker, backwards)) {
    const card = cardOf(node);
    if (card && card !== entered && card !== node) {
      // Inside a card that is not entered: over it (forwards), or onto the card itself (backwards).
      diverged = true;
      walker.currentNode = backwards ? card : lastDescendant(card);
      if (!backwards) continue;
    }
    const element = walker.currentNode as Element;
    if (card && card === element && card !== entered) {
      if (card.tabIndex >= 0 && tabbable(card)) return diverged ? card : null;
      if (card === fallbackCard) return card;
      continue;
    }
    if (tabbable(element)) return diverged ? element : null;
  }
  return null;
}

function step(walker: TreeWalker, backwards: boolean): Element | null {
  return (backwards ? walker.previousNode() : walker.nextNode()) as Element | null;
}

/** Whether the key event is a plain Tab or Shift+Tab. */
export function isTabKey(event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey'>): boolean {
  return event.key === 'Tab' && !event.ctrlKey && !event.metaKey && !event.altKey;
}

/**
 * Apply the one-stop-per-step order to every Tab pressed in the page (the session page does, while
 * it shows a chain); returns the function that stops it.
 */
export function followCardTabOrder(target: Window = window): () => void {
  const onKeydown = (event: KeyboardEvent) => {
    if (event.defaultPrevented || !isTabKey(event)) return;
    const active = document.activeElement;
    // From nowhere the browser starts at the top (or where the user last clicked): its own order is right.
    if (!active || active === document.body) return;
    const next = nextTabStop(active, event.shiftKey);
    if (!next) return;
    event.preventDefault();
    next.focus();
  };
  target.addEventListener('keydown', onKeydown);
  return () => target.removeEventListener('keydown', onKeydown);
}

/**
 * Keys on a card and inside it: Enter or → on the card enters it (its first control), ←/→ go
 * through its controls, Esc goes back to the card. Returns whether the key was used. Keys typed
 * into a field are the field's; its own Escape returns to the card (the editors handle that).
 */
export function handleCardKey(card: HTMLElement, event: KeyboardEvent): boolean {
  if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return false;
  const target = event.target as HTMLElement | null;
  if (!target) return false;
  if (target === card) {
    if (event.key !== 'Enter' && event.key !== 'ArrowRight') return false;
    const first = cardControls(card)[0];
    first?.focus();
    return first !== undefined;
  }
  if (cardOf(target) !== card || isTypingTarget(target)) return false;
  switch (event.key) {
    case 'ArrowRight':
    case 'ArrowLeft': {
      const controls = cardControls(card);
      if (controls.length === 0) return false;
      const at = controls.indexOf(target);
      const offset = event.key === 'ArrowRight' ? 1 : -1;
      controls[(at + offset + controls.length) % controls.length]?.focus();
      return true;
    }
    case 'Escape':
      card.focus();
      // Not consumed: the page's Escape still closes what is open on this step (a reject-reason panel).
      return false;
    default:
      return false;
  }
}
