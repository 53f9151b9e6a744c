import { ASK_USER_TOOL, type ApprovalPolicy, type RememberedApproval } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { callVerdict } from '../../src/core/commands/approvals.js';
import { createDefaultTools } from '../../src/tools/index.js';
import { LedgerTool } from './support/test-tools.js';

// The policy's verdict on a completed call (PROTOCOL.md §19.1, §25.3, §25.4), by plain calls.
describe('callVerdict', () => {
  const tools = createDefaultTools().register(new LedgerTool());
  const none = new Map<string, RememberedApproval>();
  const given: RememberedApproval = { tool: 'ledger', by: 'u-ada', byName: 'Ada', at: '2026-12-02T09:00:00.000Z', stepId: 'call-1' };
  const remembered = new Map([['ledger', given]]);
  const rules: ApprovalPolicy = {
    rules: [
      { tool: 'ledger', decision: 'deny', when: { entry: { startsWith: 'DROP' } } },
      { tool: 'ledger', decision: 'allow', when: { entry: { equals: 'ok' } } },
      { tool: 'calculator', decision: 'ask' },
    ],
  };

  it('leaves it to the tool without a policy: a tool that changes something asks, one that only reads or is unknown runs', () => {
    expect(callVerdict(undefined, 'ledger', '{"entry":"x"}', tools, none)).toEqual({ decision: 'ask' });
    expect(callVerdict(undefined, 'calculator', '{"expression":"1+1"}', tools, none)).toEqual({ decision: 'allow' });
    expect(callVerdict(undefined, 'workers_own_tool', '{}', tools, none)).toEqual({ decision: 'allow' });
  });

  it('always allows ask_user, with no rule and no approval, whatever the policy', () => {
    for (const policy of ['all', ['ask_user'], { rules: [{ tool: '*', decision: 'deny' }] }] as ApprovalPolicy[]) {
      expect(callVerdict(policy, ASK_USER_TOOL, '{"question":"Which?"}', tools, none)).toEqual({ decision: 'allow' });
    }
  });

  it('names the rule that allowed or denied, reading the call\'s arguments; the first match decides', () => {
    expect(callVerdict(rules, 'ledger', '{"entry":"DROP TABLE"}', tools, none)).toEqual({ decision: 'deny', via: 'rule', rule: 0 });
    expect(callVerdict(rules, 'ledger', '{"entry":"ok"}', tools, none)).toEqual({ decision: 'allow', via: 'rule', rule: 1 });
    // No rule matches, no default: as without a policy.
    expect(callVerdict(rules, 'ledger', '{"entry":"other"}', tools, none)).toEqual({ decision: 'ask' });
    // Input that is not JSON fails every `when`.
    expect(callVerdict(rules, 'ledger', 'DROP it', tools, none)).toEqual({ decision: 'ask' });
  });

  it('runs a call that would ask when its tool was approved once, but never overrides a deny', () => {
    expect(callVerdict('all', 'ledger', '{"entry":"x"}', tools, remembered)).toEqual({ decision: 'allow', via: 'remembered', remembered: given });
    expect(callVerdict(rules, 'ledger', '{"entry":"other"}', tools, remembered)).toMatchObject({ decision: 'allow', via: 'remembered' });
    expect(callVerdict(rules, 'ledger', '{"entry":"DROP"}', tools, remembered)).toEqual({ decision: 'deny', via: 'rule', rule: 0 });
    expect(callVerdict('all', 'calculator', '{"expression":"1"}', tools, remembered)).toEqual({ decision: 'ask' });
  });
});
