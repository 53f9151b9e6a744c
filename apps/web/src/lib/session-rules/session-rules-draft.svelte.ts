import type { ApprovalPolicy, Breakpoints } from '@interthought/protocol';
import {
  blankRule,
  buildApprovalPolicy,
  buildBreakpoints,
  presetRows,
  type BreakpointMode,
  type BreakpointRow,
  type DraftProblem,
  type RuleRow,
  type RulesDefault,
  type RulesPreset,
} from './rules-policy.js';

/** What the form sends: the options, or the problems that keep it from sending. */
export type SessionRulesOptions = { ok: true; approve?: ApprovalPolicy; breakpoints?: Breakpoints } | { ok: false; problems: DraftProblem[] };

/**
 * The new session's approval rules and breakpoints while the user writes them (PROTOCOL.md §25.4,
 * §25.5). One owner for both editors' state: the home page's checkbox "Ask me before each tool
 * runs" is the preset `all` of the same draft, so the two can never disagree.
 */
export class SessionRulesDraft {
  #preset = $state<RulesPreset>('none');
  #rows = $state.raw<readonly RuleRow[]>([]);
  #fallback = $state<RulesDefault>('ask');
  #breakpointMode = $state<BreakpointMode>('off');
  #breakpointRows = $state.raw<readonly BreakpointRow[]>([]);

  get preset(): RulesPreset {
    return this.#preset;
  }

  get rows(): readonly RuleRow[] {
    return this.#rows;
  }

  get fallback(): RulesDefault {
    return this.#fallback;
  }

  get breakpointMode(): BreakpointMode {
    return this.#breakpointMode;
  }

  get breakpointRows(): readonly BreakpointRow[] {
    return this.#breakpointRows;
  }

  /** Start from a preset: its rows replace the ones written (the tools that only read are named from the server's list). */
  choosePreset(preset: RulesPreset, readOnlyTools: readonly string[]): void {
    this.#preset = preset;
    if (preset === 'custom') {
      if (this.#rows.length === 0) this.#rows = [blankRule()];
      return;
    }
    this.#rows = presetRows(preset, readOnlyTools);
    this.#fallback = preset === 'reads' ? 'ask' : this.#fallback;
  }

  /** "Ask me before each tool runs": the preset `all`, or back to the server's default. */
  setAskBeforeEach(ask: boolean): void {
    this.choosePreset(ask ? 'all' : 'none', []);
  }

  addRule(): void {
    this.#rows = [...this.#rows, blankRule()];
    this.#preset = 'custom';
  }

  removeRule(index: number): void {
    this.#rows = this.#rows.filter((_, at) => at !== index);
    this.#preset = 'custom';
  }

  /** Change one row: the rules are the user's own from then on. */
  updateRule(index: number, patch: Partial<RuleRow>): void {
    this.#rows = this.#rows.map((row, at) => (at === index ? { ...row, ...patch } : row));
    this.#preset = 'custom';
  }

  setFallback(fallback: RulesDefault): void {
    this.#fallback = fallback;
  }

  setBreakpointMode(mode: BreakpointMode): void {
    this.#breakpointMode = mode;
    if (mode === 'some' && this.#breakpointRows.length === 0) this.addBreakpoint();
  }

  addBreakpoint(): void {
    this.#breakpointRows = [...this.#breakpointRows, { on: 'tool', tool: '', kind: 'thought' }];
  }

  removeBreakpoint(index: number): void {
    this.#breakpointRows = this.#breakpointRows.filter((_, at) => at !== index);
  }

  updateBreakpoint(index: number, patch: Partial<BreakpointRow>): void {
    this.#breakpointRows = this.#breakpointRows.map((row, at) => (at === index ? { ...row, ...patch } : row));
  }

  /** The session's `approve` and `breakpoints` options, checked with the protocol's schemas; the problems otherwise. */
  build(): SessionRulesOptions {
    const approve = buildApprovalPolicy({ preset: this.#preset, rows: this.#rows, fallback: this.#fallback });
    const breakpoints = buildBreakpoints(this.#breakpointMode, this.#breakpointRows);
    const problems = [...(approve.ok ? [] : approve.problems), ...(breakpoints.ok ? [] : breakpoints.problems)];
    if (!approve.ok || !breakpoints.ok) return { ok: false, problems };
    return { ok: true, ...(approve.value !== undefined ? { approve: approve.value } : {}), ...(breakpoints.value !== undefined ? { breakpoints: breakpoints.value } : {}) };
  }
}
