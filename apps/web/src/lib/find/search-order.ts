import type { ChainLayout, ChainRow } from '$lib/chain/chain-rows.js';

/** One step find searches, in the order the chain shows it. */
export interface SearchEntry {
  stepId: string;
  /** Replaced by a correction: shown (when its fold is open) struck through; hits in it say so. */
  superseded: boolean;
  /** The sub-agent whose chain it is on (the delegate call's step id); undefined on the session's own chain. */
  scope: string | undefined;
}

/** The layout of a sub-agent's chain, once it started. */
export type ScopeLayout = (scope: string) => ChainLayout | undefined;

/**
 * Every step of the displayed chain, top to bottom, as find and the outline walk it: the rows'
 * steps, the steps folded into a run of thoughts, the superseded steps folded above the step that
 * replaced them (a demanding user expects to find what the agent wrote before a correction), and
 * each sub-agent's chain right after the delegate call that started it. Steps of branches not
 * shown (an earlier alternative the picker is not on) are not part of it: they are not on the page.
 */
export function searchOrder(layout: ChainLayout, scopeLayout: ScopeLayout, scope?: string, into: SearchEntry[] = []): SearchEntry[] {
  for (const row of layout.rows) pushRow(row, scopeLayout, scope, into);
  return into;
}

/** A sub-agent's layout an order was walked with, under the root row `row`. */
interface NestedUse {
  row: number;
  scope: string;
  layout: ChainLayout | undefined;
}

/** The entries of one row, pushed onto `into`; `onNested` hears of every sub-agent layout read. */
function pushRow(row: ChainRow, scopeLayout: ScopeLayout, scope: string | undefined, into: SearchEntry[], onNested?: (scope: string, layout: ChainLayout | undefined) => void): void {
  switch (row.type) {
    case 'step':
      into.push({ stepId: row.stepId, superseded: false, scope });
      break;
    case 'thoughts':
      for (const stepId of row.stepIds) into.push({ stepId, superseded: false, scope });
      break;
    case 'superseded':
      for (const stepId of row.stepIds) into.push({ stepId, superseded: true, scope });
      break;
    case 'subagents':
      for (const call of row.calls) {
        into.push({ stepId: call.stepId, superseded: false, scope });
        const nested = scopeLayout(call.stepId);
        onNested?.(call.stepId, nested);
        if (nested) for (const inner of nested.rows) pushRow(inner, scopeLayout, call.stepId, into, onNested);
      }
      break;
    default: {
      const unknown: never = row;
      void unknown;
    }
  }
}

/** What an update of the order left as it was, and what it took off after that. */
export interface OrderChange {
  /** The leading entries that did not change. */
  kept: number;
  /** The entries that stood from `kept` on before the update. */
  removed: SearchEntry[];
}

/**
 * The search order kept in step with the layouts. A chain growing at its tail keeps its earlier
 * row objects (`relayoutFrom`), so an update walks back from the end to the last row it already
 * walked and re-walks only the rows after it: a new step costs its own row, not the whole chain.
 * A layout relaid out from scratch (a correction, a branch picked, a filter) shares no rows and is
 * walked whole. A sub-agent's chain growing changes no root row: the layouts read under each row
 * are remembered and compared, so its row is walked again. A filtered layout reuses some rows of
 * the full one in other places, so rows are shared only between two walks of unfiltered layouts.
 */
export class SearchOrderBuilder {
  readonly entries: SearchEntry[] = [];
  #rows: readonly ChainRow[] = [];
  /** Where each walked root row's entries begin in `entries`. */
  #rowStarts: number[] = [];
  #nested: NestedUse[] = [];
  /** The last walk was of an unfiltered layout. */
  #wasFull = false;

  /** Bring the order up to `layout`; `full`: it is the session's unfiltered layout (one `relayoutFrom` may have grown). */
  update(layout: ChainLayout, scopeLayout: ScopeLayout, full: boolean): OrderChange {
    let keepRows = full && this.#wasFull ? this.#sharedRows(layout.rows) : 0;
    for (const use of this.#nested) if (use.row < keepRows && scopeLayout(use.scope) !== use.layout) keepRows = use.row;
    const kept = keepRows < this.#rowStarts.length ? this.#rowStarts[keepRows]! : this.entries.length;
    const removed = this.entries.splice(kept);
    this.#rowStarts.length = keepRows;
    this.#nested = this.#nested.filter((use) => use.row < keepRows);
    for (let row = keepRows; row < layout.rows.length; row++) {
      this.#rowStarts.push(this.entries.length);
      pushRow(layout.rows[row]!, scopeLayout, undefined, this.entries, (scope, nested) => this.#nested.push({ row, scope, layout: nested }));
    }
    this.#rows = layout.rows;
    this.#wasFull = full;
    return { kept, removed };
  }

  /** Forget the order (the bar closed): the next update walks every row. */
  reset(): void {
    this.entries.length = 0;
    this.#rows = [];
    this.#rowStarts = [];
    this.#nested = [];
    this.#wasFull = false;
  }

  /** How many leading rows are the very rows walked last time (rows are kept only as a prefix, so the last shared one ends it). */
  #sharedRows(rows: readonly ChainRow[]): number {
    if (rows === this.#rows) return rows.length;
    for (let at = Math.min(rows.length, this.#rows.length) - 1; at >= 0; at--) if (rows[at] === this.#rows[at]) return at + 1;
    return 0;
  }
}
