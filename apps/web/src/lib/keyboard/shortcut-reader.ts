import { isStepCard } from './card-tab-order.js';
import { isTypingTarget } from './shortcut-keys.js';

/** What a key press asks the chain page to do. */
export type ShortcutAction =
  | 'next'
  | 'previous'
  | 'correct'
  | 'approve'
  | 'reject'
  | 'message'
  | 'top'
  | 'bottom'
  | 'help'
  | 'escape'
  /** Ctrl/Cmd+F anywhere, `/` when not typing: find in the chain. */
  | 'find'
  /** F3 / Shift+F3: the next / previous hit of the find. */
  | 'findNext'
  | 'findPrevious'
  /** `o`: the chain's outline. */
  | 'outline';

/** The shortcuts, as the `?` overlay lists them (`alt`: other keys that do the same; `enter` and `leave` are the cards' own keys, keyboard/card-tab-order.ts). */
export const SHORTCUT_LIST = [
  { keys: ['j'], alt: ['↓'], action: 'next' },
  { keys: ['k'], alt: ['↑'], action: 'previous' },
  { keys: ['→'], alt: ['Enter'], action: 'enter' },
  { keys: ['Tab'], action: 'leave' },
  { keys: ['e'], action: 'correct' },
  { keys: ['a'], action: 'approve' },
  { keys: ['r'], action: 'reject' },
  { keys: ['m'], action: 'message' },
  { keys: ['Enter'], action: 'send' },
  { keys: ['Esc'], action: 'cancel' },
  { keys: ['mod', 'Enter'], action: 'save' },
  { keys: ['g', 'g'], action: 'top' },
  { keys: ['G'], action: 'bottom' },
  { keys: ['mod', 'F'], action: 'find' },
  { keys: ['/'], action: 'quickFind' },
  { keys: ['F3'], action: 'findNext' },
  { keys: ['o'], action: 'outline' },
  { keys: ['?'], action: 'help' },
] as const;

type KeyEventLike = Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'target'> & { shiftKey?: boolean };

/**
 * Turns key presses into chain actions, vim-style: `j`/`k` (or ↓/↑ on a step's card), `e`, `a`/`r` (approve / reject a
 * tool call that waits), `m` (the message composer), `g g` (two presses within `chordMs`), `G`, `?` and Escape. Keys typed
 * into a text field are never shortcuts.
 */
export class ShortcutReader {
  #lastG = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly chordMs = 800,
    private readonly now: () => number = () => Date.now(),
  ) {}

  read(event: KeyEventLike): ShortcutAction | null {
    if (event.key === 'Escape') return 'escape';
    // Find is asked for from anywhere on the page, a text field included (what Ctrl+F means everywhere).
    if ((event.ctrlKey || event.metaKey) && !event.altKey && (event.key === 'f' || event.key === 'F')) return 'find';
    if (event.key === 'F3' && !event.ctrlKey && !event.metaKey && !event.altKey) return event.shiftKey ? 'findPrevious' : 'findNext';
    if (event.ctrlKey || event.metaKey || event.altKey || isTypingTarget(event.target)) return null;
    switch (event.key) {
      case 'j':
        return 'next';
      case 'k':
        return 'previous';
      case 'e':
        return 'correct';
      case 'a':
        return 'approve';
      case 'r':
        return 'reject';
      // m for message: j/k/e/a/r/g/G are taken.
      case 'm':
        return 'message';
      case 'G':
        return 'bottom';
      // On a step's card (not in it) the arrows move between steps, as in a feed; elsewhere they scroll.
      case 'ArrowDown':
        return isStepCard(event.target) ? 'next' : null;
      case 'ArrowUp':
        return isStepCard(event.target) ? 'previous' : null;
      case '/':
        return 'find';
      case 'o':
        return 'outline';
      case '?':
        return 'help';
      case 'g': {
        const at = this.now();
        if (at - this.#lastG <= this.chordMs) {
          this.#lastG = Number.NEGATIVE_INFINITY;
          return 'top';
        }
        this.#lastG = at;
        return null;
      }
      default:
        return null;
    }
  }
}
