import { tick } from 'svelte';

/**
 * One popup menu's state and keys (the WAI-ARIA menu button): ↑/↓ wrap through the enabled items,
 * Home/End jump, Escape closes and gives focus back to the button, Tab closes and moves on, a press
 * outside closes. Every menu of the app is one of these, so they all behave alike.
 */
export class MenuPopup {
  open = $state(false);
  #wrapper: HTMLElement | undefined;
  #trigger: HTMLElement | undefined;

  /** On the element holding the button and the menu; a press outside it closes the menu. */
  readonly attachWrapper = (wrapper: HTMLElement): (() => void) | void => {
    this.#wrapper = wrapper;
    // Listened to only while open: every card of a long chain has a menu.
    if (!this.open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!wrapper.contains(event.target as Node)) this.close(false);
    };
    window.addEventListener('pointerdown', onPointerDown);
    return () => window.removeEventListener('pointerdown', onPointerDown);
  };

  /** On the button that opens it: focus returns there when the menu closes. */
  readonly attachTrigger = (trigger: HTMLElement): void => {
    this.#trigger = trigger;
  };

  readonly toggle = (): void => {
    if (this.open) this.close();
    else void this.show();
  };

  async show(): Promise<void> {
    this.open = true;
    await tick();
    this.#items()[0]?.focus();
  }

  close(returnFocus = true): void {
    this.open = false;
    if (returnFocus) this.#trigger?.focus();
  }

  /** Closes the menu (focus back on its button), then does what the item says. */
  choose(run: () => void): void {
    this.close();
    run();
  }

  readonly onKeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') {
      // The card's and the page's own Escape (closing an editor) must not also act on it.
      event.stopPropagation();
      event.preventDefault();
      this.close();
      return;
    }
    if (event.key === 'Tab') {
      this.close(false);
      return;
    }
    // ←/→ are a card's moves between its controls; inside an open menu they do nothing.
    if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') event.stopPropagation();
    const list = this.#items();
    const next = list[menuMove(event.key, list.indexOf(document.activeElement as HTMLElement), list.length) ?? -1];
    if (next) {
      event.preventDefault();
      next.focus();
    }
  };

  #items(): HTMLElement[] {
    return Array.from(this.#wrapper?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([disabled])') ?? []);
  }
}

/** The item a key moves to from item `at` of `count` (↑/↓ wrap), or undefined for a key that moves nowhere. */
export function menuMove(key: string, at: number, count: number): number | undefined {
  if (count === 0) return undefined;
  if (key === 'ArrowDown') return (at + 1) % count;
  if (key === 'ArrowUp') return (at - 1 + count) % count;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return undefined;
}
