import type { RowFilter, SessionView } from '$lib/chain/session-view.svelte.js';
import { filterLayout, type KindFilter } from './kind-filter.js';

/** The filter by kind the chain is shown with (null: every step). Owns the choice; the session view applies it to its layout. */
export class ChainFilter {
  #kind = $state<KindFilter | null>(null);

  constructor(private readonly session: SessionView) {}

  get kind(): KindFilter | null {
    return this.#kind;
  }

  set(kind: KindFilter | null): void {
    if (kind === this.#kind) return;
    this.#kind = kind;
    const filter: RowFilter | null = kind === null ? null : (layout, state) => filterLayout(layout, state, kind);
    this.session.setRowFilter(filter);
  }
}
