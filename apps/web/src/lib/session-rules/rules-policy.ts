import {
  ApprovalRulesSchema,
  BreakpointsSchema,
  type ApprovalPolicy,
  type ApprovalRule,
  type Breakpoint,
  type Breakpoints,
  type RuleCondition,
  type RuleDecision,
} from '@interthought/protocol';

/*
 * The new-session form's rules and breakpoints as plain values, and what they become on the wire
 * (`options.approve`, `options.breakpoints`, PROTOCOL.md §25.4, §25.5). Built here, validated with
 * the protocol's own schemas before anything is sent: the server would refuse what they refuse.
 */

/** The one argument test a row of the editor offers (the protocol has more; the editor stays compact). */
export type ConditionTest = 'none' | 'under' | 'startsWith' | 'equals';

/** One row of the rules editor. */
export interface RuleRow {
  tool: string;
  decision: RuleDecision;
  test: ConditionTest;
  /** The argument's path in the call's input (`path`, `options.force`). */
  argument: string;
  value: string;
}

/** What a call no rule matches does: ask, allow, or as the tool declares (no `default`). */
export type RulesDefault = 'ask' | 'allow' | 'tool';

/** The rules presets; `all` is "ask before every tool" (`approve: "all"`), `none` the server's default (no policy). */
export type RulesPreset = 'none' | 'all' | 'reads' | 'readOnly' | 'custom';

export interface RulesDraftValue {
  preset: RulesPreset;
  rows: readonly RuleRow[];
  fallback: RulesDefault;
}

/** Breakpoints: none, every step (step-by-step mode), or the listed ones. */
export type BreakpointMode = 'off' | 'all' | 'some';

/** One row of the breakpoints editor: before a tool runs (a glob), or after a step of a kind. */
export interface BreakpointRow {
  on: 'tool' | 'kind';
  tool: string;
  kind: NonNullable<Breakpoint['kind']>;
}

/** A problem the form shows before sending, by row (counted from 1, as people count). */
export type DraftProblem =
  | { kind: 'rule'; row: number; problem: 'tool' | 'argument' | 'value' }
  | { kind: 'rules'; message: string }
  | { kind: 'breakpoint'; row: number }
  | { kind: 'breakpoints'; message: string };

export const blankRule = (): RuleRow => ({ tool: '', decision: 'ask', test: 'none', argument: 'path', value: '' });

/** The rows a preset starts from: the tools that only read are allowed by name, then the rest asks or is refused. */
export function presetRows(preset: RulesPreset, readOnlyTools: readonly string[]): RuleRow[] {
  const reads = readOnlyTools.map((tool): RuleRow => ({ ...blankRule(), tool, decision: 'allow' }));
  switch (preset) {
    case 'reads':
      return [...reads, { ...blankRule(), tool: '*', decision: 'ask' }];
    case 'readOnly':
      return [...reads, { ...blankRule(), tool: '*', decision: 'deny' }];
    default:
      return [];
  }
}

/** An `equals` value as typed: JSON when it reads as JSON (`true`, `3`, `"x"`), else the text itself. */
function equalsValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function ruleOf(row: RuleRow): ApprovalRule {
  const rule: ApprovalRule = { tool: row.tool.trim(), decision: row.decision };
  if (row.test === 'none') return rule;
  const condition: RuleCondition = row.test === 'equals' ? { equals: equalsValue(row.value.trim()) } : { [row.test]: row.value.trim() };
  rule.when = { [row.argument.trim()]: condition };
  return rule;
}

function rowProblem(row: RuleRow): 'tool' | 'argument' | 'value' | undefined {
  if (row.tool.trim() === '') return 'tool';
  if (row.test === 'none') return undefined;
  if (row.argument.trim() === '') return 'argument';
  if (row.value.trim() === '' && row.test !== 'startsWith') return 'value';
  return undefined;
}

export type Built<T> = { ok: true; value: T | undefined } | { ok: false; problems: DraftProblem[] };

/** `options.approve` from the rules editor: undefined for the server's default; validated with `ApprovalRulesSchema`. */
export function buildApprovalPolicy(draft: RulesDraftValue): Built<ApprovalPolicy> {
  if (draft.preset === 'none') return { ok: true, value: undefined };
  if (draft.preset === 'all') return { ok: true, value: 'all' };
  const problems: DraftProblem[] = [];
  draft.rows.forEach((row, index) => {
    const problem = rowProblem(row);
    if (problem) problems.push({ kind: 'rule', row: index + 1, problem });
  });
  if (problems.length > 0) return { ok: false, problems };
  // No rule at all: only the default decides, which a rule for every tool says the same way.
  const rules = draft.rows.length > 0 ? draft.rows.map(ruleOf) : draft.fallback === 'tool' ? [] : [{ tool: '*', decision: draft.fallback }];
  if (rules.length === 0) return { ok: true, value: undefined };
  const candidate = { rules, ...(draft.fallback === 'tool' ? {} : { default: draft.fallback }) };
  const parsed = ApprovalRulesSchema.safeParse(candidate);
  if (!parsed.success) return { ok: false, problems: [{ kind: 'rules', message: parsed.error.issues[0]?.message ?? 'invalid' }] };
  return { ok: true, value: parsed.data };
}

/** `options.breakpoints` from the breakpoints editor: undefined when off; validated with `BreakpointsSchema`. */
export function buildBreakpoints(mode: BreakpointMode, rows: readonly BreakpointRow[]): Built<Breakpoints> {
  if (mode === 'off') return { ok: true, value: undefined };
  if (mode === 'all') return { ok: true, value: 'all' };
  const problems: DraftProblem[] = [];
  const list = rows.map((row, index): Breakpoint => {
    if (row.on === 'kind') return { kind: row.kind };
    const tool = row.tool.trim();
    if (tool === '') problems.push({ kind: 'breakpoint', row: index + 1 });
    return { kind: 'tool_call', tool };
  });
  if (problems.length > 0) return { ok: false, problems };
  if (list.length === 0) return { ok: true, value: undefined };
  const parsed = BreakpointsSchema.safeParse(list);
  if (!parsed.success) return { ok: false, problems: [{ kind: 'breakpoints', message: parsed.error.issues[0]?.message ?? 'invalid' }] };
  return { ok: true, value: parsed.data };
}
