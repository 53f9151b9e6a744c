import { enclosingScopes, type SessionState } from '@interthought/protocol';
import { countRunningSubagents } from './subagent-count.js';
import { SubagentView } from './subagent-view.svelte.js';

/** What a flush changed of the sub-agents (their steps change their own rows, not the root's). */
export interface ScopeChanges {
  /** The earliest depth at which each scope's rows changed (`FULL_SCOPE_RELAYOUT`: from the top). */
  rows: Map<string, number>;
  /** A correction or an invalidation: any chain may have lost steps. */
  reshaped: boolean;
  /** A sub-agent started: there is a new view to make. */
  started: boolean;
}

export function noScopeChanges(): ScopeChanges {
  return { rows: new Map(), reshaped: false, started: false };
}

/**
 * The views of a session's sub-agents (PROTOCOL.md §24), by scope, in the order they started, and
 * how many of them run. Owned by SessionView, which hands it the reducer's state after each flush.
 */
export class SubagentViews {
  /** Replaced when a sub-agent starts, so the panels waiting for it find it. */
  #views = $state.raw<ReadonlyMap<string, SubagentView>>(new Map());
  #running = $state(0);

  get(scope: string): SubagentView | undefined {
    return this.#views.get(scope);
  }

  get all(): ReadonlyMap<string, SubagentView> {
    return this.#views;
  }

  /** How many run now, at every depth (the header and the rail say it). */
  get running(): number {
    return this.#running;
  }

  /** Views for a snapshot's sub-agents (a view already shown keeps its folding), each laid out. */
  load(state: SessionState): void {
    const views = new Map<string, SubagentView>();
    for (const info of state.subagents.values()) {
      const view = this.#views.get(info.scope) ?? new SubagentView(info);
      view.sync(info);
      view.relayout(state);
      views.set(info.scope, view);
    }
    this.#views = views;
    this.#running = countRunningSubagents(state);
  }

  /** Bring the views up to date after a flush: new ones, statuses and usage, and the rows their steps changed. */
  sync(state: SessionState, changes: ScopeChanges): void {
    if (changes.started) {
      const views = new Map(this.#views);
      for (const info of state.subagents.values()) if (!views.has(info.scope)) views.set(info.scope, new SubagentView(info));
      this.#views = views;
    }
    for (const view of this.#views.values()) {
      const info = state.subagents.get(view.scope);
      if (info === undefined) continue;
      view.sync(info);
      // A correction anywhere may end a scope's chain (or its delegate call's): every scope is laid out again.
      if (changes.reshaped) view.relayout(state);
      else {
        const from = changes.rows.get(view.scope);
        if (from !== undefined) view.relayout(state, from);
      }
    }
    const running = countRunningSubagents(state);
    if (running !== this.#running) this.#running = running;
  }

  /** Unfold every panel around a step. */
  reveal(state: SessionState, stepId: string): void {
    for (const scope of enclosingScopes(state, stepId)) this.#views.get(scope)?.expand();
  }
}
