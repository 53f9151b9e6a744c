import type { SessionView } from '$lib/chain/session-view.svelte.js';
import { ChainFilter } from './chain-filter.svelte.js';
import { ChainFind } from './chain-find.svelte.js';

/** The session page's ways through a long chain: find, the outline, the filter by kind. */
export class ChainTools {
  readonly find: ChainFind;
  readonly filter: ChainFilter;
  #outlineOpen = $state(false);

  constructor(readonly session: SessionView) {
    this.find = new ChainFind(session);
    this.filter = new ChainFilter(session);
  }

  get outlineOpen(): boolean {
    return this.#outlineOpen;
  }

  set outlineOpen(open: boolean) {
    this.#outlineOpen = open;
  }

  toggleOutline(): void {
    this.#outlineOpen = !this.#outlineOpen;
  }
}
