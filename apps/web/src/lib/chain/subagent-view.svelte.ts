import type { SessionState, SessionUsage, SubagentInfo, SubagentStatus } from '@interthought/protocol';
import { chainSource, layoutChain, relayoutFrom, type BranchSelection, type ChainLayout } from './chain-rows.js';

const EMPTY_LAYOUT: ChainLayout = { rows: [], path: [], viewingEarlierBranch: false, rowDepths: [] };

/** Lay out the scope's chain from the top (a correction, an invalidation, a snapshot). */
export const FULL_SCOPE_RELAYOUT = -1;

/**
 * What the UI shows of one sub-agent (PROTOCOL.md §24): its label and status, its usage, and the
 * rows of its scope's chain with the branch picks made inside it. Written only by SessionView,
 * from the reducer's `SubagentInfo`; its steps are the session's StepViews, shared with the root.
 */
export class SubagentView {
  /** The delegate call that started it. */
  readonly scope: string;
  readonly parentScope: string | undefined;
  readonly depth: number;
  readonly name: string;
  readonly agent: string;
  readonly task: string;

  #status = $state<SubagentStatus>('running');
  #error = $state<string | undefined>(undefined);
  #usage = $state.raw<SessionUsage | undefined>(undefined);
  #layout = $state.raw<ChainLayout>(EMPTY_LAYOUT);
  /** The alternative picked at each branch point of this scope the user navigated (parent key → step id). */
  #selection = $state.raw<BranchSelection>(new Map());
  /** Whether its chain is shown under its call; the user folds it away. */
  #expanded = $state(true);
  /** Its delegate call was invalidated: its chain is shown as it last was, read-only. */
  #historic = $state(false);

  constructor(info: SubagentInfo) {
    this.scope = info.scope;
    this.parentScope = info.parentScope;
    this.depth = info.depth;
    this.name = info.name;
    this.agent = info.agent;
    this.task = info.task;
    this.sync(info);
  }

  get status(): SubagentStatus {
    return this.#status;
  }

  get error(): string | undefined {
    return this.#error;
  }

  get usage(): SessionUsage | undefined {
    return this.#usage;
  }

  get layout(): ChainLayout {
    return this.#layout;
  }

  get historic(): boolean {
    return this.#historic;
  }

  get expanded(): boolean {
    return this.#expanded;
  }

  /** Whether its run goes on now (what the cancel button stops). */
  get active(): boolean {
    return this.#status === 'running' || this.#status === 'waiting';
  }

  toggle(): void {
    this.#expanded = !this.#expanded;
  }

  expand(): void {
    this.#expanded = true;
  }

  /** Copy what changed from the reducer's entry; unchanged fields are not written. */
  sync(info: SubagentInfo): void {
    if (info.status !== this.#status) this.#status = info.status;
    if (info.error !== this.#error) this.#error = info.error;
    // The reducer replaces the totals on every call it adds: a new object is new usage.
    if (info.usage !== this.#usage) this.#usage = info.usage;
  }

  /** Lay out its chain again, from `from` on when only its tail changed (`FULL_SCOPE_RELAYOUT`: from the top). */
  relayout(state: SessionState, from: number = FULL_SCOPE_RELAYOUT): void {
    const source = chainSource(state, this.scope);
    if ((source.historic === true) !== this.#historic) this.#historic = source.historic === true;
    const tailOnly = from !== FULL_SCOPE_RELAYOUT && this.#selection.size === 0 && !this.#layout.viewingEarlierBranch;
    this.#layout = tailOnly ? relayoutFrom(state, this.#layout, from, source) : layoutChain(state, this.#selection, source);
  }

  /** Pick an alternative at a branch point of this scope (`index`: its depth on the scope's chain). */
  select(state: SessionState, parentKey: string, stepId: string, live: boolean, index: number): void {
    const next = new Map(this.#selection);
    if (live) next.delete(parentKey);
    else next.set(parentKey, stepId);
    // Picks below the new one belonged to the branch being left.
    for (const [key, picked] of next) {
      const pickedStep = state.steps.get(picked);
      if (pickedStep && pickedStep.index > index) next.delete(key);
    }
    this.#selection = next;
    this.relayout(state);
  }

  /** Leave every earlier branch of this scope and show its live chain again. */
  showLiveChain(state: SessionState): void {
    if (this.#selection.size === 0) return;
    this.#selection = new Map();
    this.relayout(state);
  }
}

