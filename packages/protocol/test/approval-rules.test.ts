import { describe, expect, it } from 'vitest';
import {
  ApprovalPolicySchema,
  ApprovalRulesSchema,
  describeRule,
  evaluateApprovalRules,
  globMatches,
  isPathUnder,
  policyVerdict,
  ruleMatches,
  type ApprovalRules,
} from '../src/index.js';

describe('globMatches (PROTOCOL.md §25.4)', () => {
  it('matches the whole name: * any run (also none), ? exactly one, anything else itself', () => {
    expect(globMatches('mcp__github__*', 'mcp__github__get_issue')).toBe(true);
    expect(globMatches('mcp__github__*', 'mcp__github__')).toBe(true);
    expect(globMatches('mcp__github__*', 'mcp__gitlab__get')).toBe(false);
    expect(globMatches('calc?lator', 'calculator')).toBe(true);
    expect(globMatches('calc?lator', 'calclator')).toBe(false);
    expect(globMatches('*', '')).toBe(true);
    expect(globMatches('a*b*c', 'axxbyyc')).toBe(true);
    expect(globMatches('a*b*c', 'axxbyy')).toBe(false);
    expect(globMatches('calculator', 'Calculator')).toBe(false);
    expect(globMatches('calc', 'calculator')).toBe(false);
  });

  it('takes the characters of regular expressions literally', () => {
    expect(globMatches('a.b', 'axb')).toBe(false);
    expect(globMatches('a.b', 'a.b')).toBe(true);
    expect(globMatches('(x)+', '(x)+')).toBe(true);
  });

  it('answers a pattern of many stars against a long name without blowing up', () => {
    expect(globMatches(`${'*a'.repeat(50)}b`, 'a'.repeat(5_000))).toBe(false);
  });
});

describe('isPathUnder', () => {
  it('compares whole segments once . and .. are resolved and repeated / collapsed', () => {
    expect(isPathUnder('/workspace', '/workspace')).toBe(true);
    expect(isPathUnder('/workspace/a/b.txt', '/workspace')).toBe(true);
    expect(isPathUnder('/workspace//a/./b', '/workspace/')).toBe(true);
    expect(isPathUnder('/workspace2/a', '/workspace')).toBe(false);
    expect(isPathUnder('/workspace/../etc/passwd', '/workspace')).toBe(false);
    expect(isPathUnder('/workspace/a/../../etc', '/workspace')).toBe(false);
    expect(isPathUnder('workspace/a', '/workspace')).toBe(false);
    expect(isPathUnder('src/a.ts', 'src')).toBe(true);
  });
});

const RULES: ApprovalRules = {
  rules: [
    { tool: 'mcp__github__get_*', decision: 'allow' },
    { tool: 'write_file', decision: 'allow', when: { path: { under: '/workspace' } } },
    { tool: 'write_file', decision: 'deny' },
    { tool: 'pay', decision: 'allow', when: { amount: { max: 100 }, currency: { oneOf: ['EUR', 'USD'] } } },
    { tool: '*', decision: 'ask' },
  ],
  default: 'allow',
};

describe('evaluateApprovalRules', () => {
  it('lets the first rule that matches decide, with its index', () => {
    expect(evaluateApprovalRules(RULES, 'mcp__github__get_issue', {})).toEqual({ decision: 'allow', rule: 0 });
    expect(evaluateApprovalRules(RULES, 'write_file', { path: '/workspace/notes.md' })).toEqual({ decision: 'allow', rule: 1 });
    expect(evaluateApprovalRules(RULES, 'write_file', { path: '/workspace/../etc/passwd' })).toEqual({ decision: 'deny', rule: 2 });
    expect(evaluateApprovalRules(RULES, 'write_file', {})).toEqual({ decision: 'deny', rule: 2 });
    expect(evaluateApprovalRules(RULES, 'pay', { amount: 40, currency: 'EUR' })).toEqual({ decision: 'allow', rule: 3 });
    expect(evaluateApprovalRules(RULES, 'pay', { amount: 400, currency: 'EUR' })).toEqual({ decision: 'ask', rule: 4 });
    expect(evaluateApprovalRules(RULES, 'pay', { amount: '40', currency: 'EUR' })).toEqual({ decision: 'ask', rule: 4 });
  });

  it('falls back to the default, or to nothing when there is none', () => {
    const narrow: ApprovalRules = { rules: [{ tool: 'shell', decision: 'deny' }] };
    expect(evaluateApprovalRules(narrow, 'calculator', {})).toBeUndefined();
    expect(evaluateApprovalRules({ ...narrow, default: 'ask' }, 'calculator', {})).toEqual({ decision: 'ask' });
  });

  it('never matches ask_user, not even with a catch-all deny', () => {
    expect(evaluateApprovalRules({ rules: [{ tool: '*', decision: 'deny' }] }, 'ask_user', { question: 'Which?' })).toEqual({ decision: 'allow' });
  });

  it('reads dotted paths into objects and arrays, and fails every when on input that is not an object', () => {
    const rule = { tool: 't', decision: 'allow' as const, when: { 'options.force': { equals: true }, 'files.0': { glob: '*.md' } } };
    expect(ruleMatches(rule, 't', { options: { force: true }, files: ['a.md', 'b.ts'] })).toBe(true);
    expect(ruleMatches(rule, 't', { options: { force: false }, files: ['a.md'] })).toBe(false);
    expect(ruleMatches(rule, 't', { options: { force: true }, files: ['b.ts'] })).toBe(false);
    expect(ruleMatches(rule, 't', 'not json')).toBe(false);
    expect(ruleMatches(rule, 't', [1, 2])).toBe(false);
    expect(ruleMatches({ tool: 't', decision: 'allow' }, 't', 'not json')).toBe(true);
  });

  it('tests equals deeply, startsWith on strings only, exists both ways', () => {
    const match = (when: Record<string, Record<string, unknown>>, input: unknown) => ruleMatches({ tool: 't', decision: 'allow', when } as never, 't', input);
    expect(match({ q: { equals: { a: [1, { b: 2 }] } } }, { q: { a: [1, { b: 2 }] } })).toBe(true);
    expect(match({ q: { equals: { a: [1, { b: 2 }] } } }, { q: { a: [1, { b: 3 }] } })).toBe(false);
    expect(match({ q: { startsWith: 'https://' } }, { q: 'https://example.com' })).toBe(true);
    expect(match({ q: { startsWith: '1' } }, { q: 12 })).toBe(false);
    expect(match({ q: { exists: false } }, {})).toBe(true);
    expect(match({ q: { exists: false } }, { q: null })).toBe(false);
    expect(match({ q: { exists: true } }, {})).toBe(false);
    expect(match({ q: { min: 1, max: 3 } }, { q: 2 })).toBe(true);
    expect(match({ q: { min: 1, max: 3 } }, { q: 4 })).toBe(false);
    expect(match({ q: { glob: '*.md' } }, {})).toBe(false);
  });

  it('describes a rule as people read it in a refusal', () => {
    expect(describeRule(RULES.rules[2]!)).toBe('write_file: deny');
    expect(describeRule(RULES.rules[3]!)).toBe('pay: allow when amount, currency');
  });
});

describe('policyVerdict: one evaluator for every policy shape (PROTOCOL.md §19.1, §25.4)', () => {
  it('reads all, none and lists as before', () => {
    expect(policyVerdict('all', 'calculator', {}, false)).toEqual({ decision: 'ask' });
    expect(policyVerdict('none', 'shell', {}, true)).toEqual({ decision: 'allow' });
    expect(policyVerdict(['shell'], 'shell', {}, false)).toEqual({ decision: 'ask' });
    expect(policyVerdict(['shell'], 'calculator', {}, true)).toEqual({ decision: 'allow' });
  });

  it('leaves it to the tool without a policy, or when rules have no default and none matches', () => {
    expect(policyVerdict(undefined, 'shell', {}, true)).toEqual({ decision: 'ask' });
    expect(policyVerdict(undefined, 'calculator', {}, false)).toEqual({ decision: 'allow' });
    expect(policyVerdict({ rules: [{ tool: 'x', decision: 'deny' }] }, 'shell', {}, true)).toEqual({ decision: 'ask' });
    expect(policyVerdict({ rules: [{ tool: 'x', decision: 'deny' }] }, 'x', {}, false)).toEqual({ decision: 'deny', rule: 0 });
  });
});

describe('the rules schema', () => {
  it('takes the spec example as options.approve', () => {
    expect(ApprovalPolicySchema.safeParse(RULES).success).toBe(true);
  });

  it('refuses what a typo would make: unknown fields, empty lists, a condition without a test, a bad decision', () => {
    expect(ApprovalRulesSchema.safeParse({ rules: [] }).success).toBe(false);
    expect(ApprovalRulesSchema.safeParse({ rules: [{ tool: 'x', decision: 'maybe' }] }).success).toBe(false);
    expect(ApprovalRulesSchema.safeParse({ rules: [{ tool: 'x', decision: 'allow', when: {} }] }).success).toBe(false);
    expect(ApprovalRulesSchema.safeParse({ rules: [{ tool: 'x', decision: 'allow', when: { p: {} } }] }).success).toBe(false);
    expect(ApprovalRulesSchema.safeParse({ rules: [{ tool: 'x', decision: 'allow', when: { p: { under: '/w', regex: '.*' } } }] }).success).toBe(false);
    expect(ApprovalRulesSchema.safeParse({ rules: [{ tool: 'x', decision: 'allow', tools: 'y' }] }).success).toBe(false);
    expect(ApprovalRulesSchema.safeParse({ rules: [{ tool: 'x', decision: 'allow' }], default: 'deny' }).success).toBe(false);
    expect(ApprovalRulesSchema.safeParse({ rules: Array.from({ length: 65 }, () => ({ tool: 'x', decision: 'allow' })) }).success).toBe(false);
  });
});
