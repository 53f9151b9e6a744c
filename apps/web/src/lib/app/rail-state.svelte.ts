import type { RailState } from './app-context.js';

const STORAGE_KEY = 'interthought.rail';

/** The left rail's open/closed state: remembered, and closed by default on narrow screens. */
export class RailToggle implements RailState {
  #open = $state(true);

  constructor(
    private readonly store: Pick<Storage, 'getItem' | 'setItem'> | null,
    narrowScreen: boolean,
  ) {
    let saved: string | null = null;
    try {
      saved = store?.getItem(STORAGE_KEY) ?? null;
    } catch {
      saved = null;
    }
    this.#open = saved === null ? !narrowScreen : saved === 'open';
  }

  get open(): boolean {
    return this.#open;
  }

  toggle(): void {
    this.#open = !this.#open;
    try {
      this.store?.setItem(STORAGE_KEY, this.#open ? 'open' : 'closed');
    } catch {
      // Not remembered, but still toggled.
    }
  }
}
