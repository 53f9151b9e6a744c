import { ApprovalPolicySchema, BreakpointsSchema, policyVerdict } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { blankRule, buildApprovalPolicy, buildBreakpoints, presetRows } from '$lib/session-rules/rules-policy.js';
import { SessionRulesDraft } from '$lib/session-rules/session-rules-draft.svelte.js';

const READS = ['calculator', 'unit_converter'];

describe('the rules editor’s policy', () => {
  it('sends no policy for "ask before anything that changes", and "all" for ask before every tool', () => {
    expect(buildApprovalPolicy({ preset: 'none', rows: [], fallback: 'ask' })).toEqual({ ok: true, value: undefined });
    expect(buildApprovalPolicy({ preset: 'all', rows: [], fallback: 'ask' })).toEqual({ ok: true, value: 'all' });
  });

  it('allows the tools that only read by name and asks for the rest', () => {
    const built = buildApprovalPolicy({ preset: 'reads', rows: presetRows('reads', READS), fallback: 'ask' });
    expect(built).toEqual({
      ok: true,
      value: { rules: [{ tool: 'calculator', decision: 'allow' }, { tool: 'unit_converter', decision: 'allow' }, { tool: '*', decision: 'ask' }], default: 'ask' },
    });
    const policy = built.ok ? built.value : undefined;
    expect(policyVerdict(policy, 'calculator', {}, false).decision).toBe('allow');
    expect(policyVerdict(policy, 'write_file', {}, true).decision).toBe('ask');
  });

  it('denies everything but reading', () => {
    const built = buildApprovalPolicy({ preset: 'readOnly', rows: presetRows('readOnly', READS), fallback: 'ask' });
    const policy = built.ok ? built.value : undefined;
    expect(ApprovalPolicySchema.safeParse(policy).success).toBe(true);
    expect(policyVerdict(policy, 'write_file', {}, true)).toEqual({ decision: 'deny', rule: 2 });
    expect(policyVerdict(policy, 'unit_converter', {}, false)).toEqual({ decision: 'allow', rule: 1 });
  });

  it('builds one argument condition per row: under, startsWith, equals (JSON when it reads as JSON)', () => {
    const built = buildApprovalPolicy({
      preset: 'custom',
      rows: [
        { tool: 'write_file', decision: 'allow', test: 'under', argument: 'path', value: '/workspace' },
        { tool: 'shell', decision: 'deny', test: 'equals', argument: 'options.force', value: 'true' },
        { tool: 'fetch', decision: 'ask', test: 'startsWith', argument: 'url', value: 'https://' },
        { ...blankRule(), tool: 'write_file', decision: 'deny' },
      ],
      fallback: 'tool',
    });
    expect(built).toEqual({
      ok: true,
      value: {
        rules: [
          { tool: 'write_file', decision: 'allow', when: { path: { under: '/workspace' } } },
          { tool: 'shell', decision: 'deny', when: { 'options.force': { equals: true } } },
          { tool: 'fetch', decision: 'ask', when: { url: { startsWith: 'https://' } } },
          { tool: 'write_file', decision: 'deny' },
        ],
      },
    });
    const policy = built.ok ? built.value : undefined;
    expect(policyVerdict(policy, 'write_file', { path: '/workspace/a.txt' }, true)).toEqual({ decision: 'allow', rule: 0 });
    expect(policyVerdict(policy, 'write_file', { path: '/workspace/../etc/passwd' }, true)).toEqual({ decision: 'deny', rule: 3 });
  });

  it('names the row and what is missing instead of sending rules the server would refuse', () => {
    expect(
      buildApprovalPolicy({
        preset: 'custom',
        rows: [
          { ...blankRule(), tool: ' ' },
          { tool: 'write_file', decision: 'allow', test: 'under', argument: 'path', value: '' },
          { tool: 'write_file', decision: 'allow', test: 'under', argument: '', value: '/w' },
        ],
        fallback: 'ask',
      }),
    ).toEqual({
      ok: false,
      problems: [
        { kind: 'rule', row: 1, problem: 'tool' },
        { kind: 'rule', row: 2, problem: 'value' },
        { kind: 'rule', row: 3, problem: 'argument' },
      ],
    });
    const tooMany = Array.from({ length: 65 }, () => ({ ...blankRule(), tool: '*' }));
    const built = buildApprovalPolicy({ preset: 'custom', rows: tooMany, fallback: 'ask' });
    expect(built.ok).toBe(false);
    expect(!built.ok && built.problems[0]?.kind).toBe('rules');
  });
});

describe('the breakpoints editor’s breakpoints', () => {
  it('is off, step by step ("all"), or a list before tools and after kinds', () => {
    expect(buildBreakpoints('off', [])).toEqual({ ok: true, value: undefined });
    expect(buildBreakpoints('all', [])).toEqual({ ok: true, value: 'all' });
    const built = buildBreakpoints('some', [
      { on: 'tool', tool: 'calc*', kind: 'thought' },
      { on: 'kind', tool: '', kind: 'final_answer' },
    ]);
    expect(built).toEqual({ ok: true, value: [{ kind: 'tool_call', tool: 'calc*' }, { kind: 'final_answer' }] });
    expect(BreakpointsSchema.safeParse(built.ok ? built.value : undefined).success).toBe(true);
    expect(buildBreakpoints('some', [{ on: 'tool', tool: '', kind: 'thought' }])).toEqual({ ok: false, problems: [{ kind: 'breakpoint', row: 1 }] });
  });
});

describe('SessionRulesDraft', () => {
  it('keeps "ask me before each tool runs" and the presets one state, and edits make the rules custom', () => {
    const draft = new SessionRulesDraft();
    draft.setAskBeforeEach(true);
    expect(draft.build()).toEqual({ ok: true, approve: 'all' });
    draft.choosePreset('readOnly', READS);
    expect(draft.rows.map((row) => `${row.tool}:${row.decision}`)).toEqual(['calculator:allow', 'unit_converter:allow', '*:deny']);
    draft.updateRule(2, { decision: 'ask' });
    expect(draft.preset).toBe('custom');
    draft.setBreakpointMode('all');
    const built = draft.build();
    expect(built.ok && built.breakpoints).toBe('all');
    draft.setAskBeforeEach(false);
    expect(draft.build()).toEqual({ ok: true, breakpoints: 'all' });
  });
});
