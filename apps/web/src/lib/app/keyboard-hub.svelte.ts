import type { ShortcutAction } from '$lib/keyboard/index.js';

/** Handles a shortcut; returns true when it acted on it (the key press is then consumed). */
export type ShortcutHandler = (action: ShortcutAction) => boolean;

/**
 * One keyboard listener for the whole app (in the root layout). `?` toggles the shortcuts
 * overlay here; every other action goes to whichever page registered a handler (the chain).
 */
export class KeyboardHub {
  #overlayOpen = $state(false);
  #handler: ShortcutHandler | null = null;

  /** Whether the shortcuts overlay is showing. */
  get overlayOpen(): boolean {
    return this.#overlayOpen;
  }

  openOverlay(): void {
    this.#overlayOpen = true;
  }

  closeOverlay(): void {
    this.#overlayOpen = false;
  }

  /** Become the receiver of chain shortcuts; returns the function that stops receiving. */
  register(handler: ShortcutHandler): () => void {
    this.#handler = handler;
    return () => {
      if (this.#handler === handler) this.#handler = null;
    };
  }

  dispatch(action: ShortcutAction): boolean {
    if (action === 'help') {
      this.#overlayOpen = !this.#overlayOpen;
      return true;
    }
    if (action === 'escape' && this.#overlayOpen) {
      this.#overlayOpen = false;
      return true;
    }
    if (this.#overlayOpen) return false;
    return this.#handler?.(action) ?? false;
  }
}
