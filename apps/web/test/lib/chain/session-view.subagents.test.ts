import { describe, expect, it } from 'vitest';
import { countRunningSubagents } from '$lib/chain/subagent-count.js';
import { createHarness, type Harness } from '../../support/chain-harness.js';

/** The demo agent's split: a thought, two delegate calls in one batch, each sub-agent a few steps in. */
function parallelParts(harness: Harness) {
  const { log } = harness;
  log.step('thought', 'Two independent parts: one sub-agent each.');
  const part1 = log.delegate('part 1', 'What is 17 * 23 + 4?');
  const part2 = log.delegate('part 2', 'What is 15% of 240?');
  const call1 = log.step('tool_call', '{"expression":"17 * 23 + 4"}', { tool: 'calculator', scope: part1 });
  const result1 = log.step('observation', '395', { tool: 'calculator', scope: part1 });
  const call2 = log.step('tool_call', '{"expression":"0.15 * 240"}', { tool: 'calculator', scope: part2 });
  harness.deliver();
  return { part1, part2, call1, result1, call2 };
}

describe('SessionView with sub-agents', () => {
  it('keeps a view per sub-agent with its name, agent and its own chain', () => {
    const harness = createHarness();
    const { part1, part2, call1, result1, call2 } = parallelParts(harness);
    const first = harness.session.subagent(part1)!;
    expect([first.name, first.agent, first.status, first.depth]).toEqual(['part 1', 'demo', 'running', 1]);
    expect(first.layout.path).toEqual([call1, result1]);
    expect(harness.session.subagent(part2)!.layout.path).toEqual([call2]);
    // The root's rows hold the batch, not the sub-agents' steps.
    expect(harness.session.layout.path).not.toContain(call1);
    expect(harness.session.layout.rows.at(-1)).toMatchObject({ type: 'subagents', calls: [{ stepId: part1 }, { stepId: part2 }] });
  });

  it('leaves the root rows untouched while sub-agents stream', () => {
    const harness = createHarness();
    const { part1, part2 } = parallelParts(harness);
    const rootRows = harness.session.layout.rows;
    const before = harness.session.subagent(part2)!.layout;
    harness.log.step('final_answer', '17 * 23 + 4 = 395', { scope: part1 });
    harness.deliver();
    expect(harness.session.layout.rows).toBe(rootRows);
    expect(harness.session.subagent(part1)!.layout.path).toHaveLength(3);
    // A sibling whose chain did not change keeps its layout.
    expect(harness.session.subagent(part2)!.layout).toBe(before);
  });

  it('follows each sub-agent’s status and counts the running ones, waiting included', () => {
    const harness = createHarness();
    const { part1, part2 } = parallelParts(harness);
    expect(harness.session.subagentsRunning).toBe(2);
    harness.log.subagentStatus(part1, 'completed');
    harness.deliver();
    expect(harness.session.subagent(part1)!.status).toBe('completed');
    expect(harness.session.subagentsRunning).toBe(1);
    harness.log.subagentStatus(part2, 'failed', 'The calculator was unreachable.');
    harness.deliver();
    expect(harness.session.subagent(part2)!.error).toBe('The calculator was unreachable.');
    expect(harness.session.subagentsRunning).toBe(0);
  });

  it('no longer counts a sub-agent whose delegate call a correction invalidated', () => {
    const harness = createHarness();
    const { part1, part2, call1, result1, call2 } = parallelParts(harness);
    harness.log.correct(part1, JSON.stringify({ task: 'What is 17 * 24?', name: 'part 1' }), undefined, 'c-1', { alsoInvalidated: [call1, result1, call2] });
    harness.deliver();
    expect(countRunningSubagents(harness.session.state)).toBe(0);
    expect(harness.session.subagentsRunning).toBe(0);
    expect(harness.session.subagent(part1)!.historic).toBe(true);
    expect(harness.session.subagent(part2)!.historic).toBe(true);
  });

  it('corrects inside a scope: its chain shows the superseded steps, the sibling’s chain stays as it was', () => {
    const harness = createHarness();
    const { part1, part2, call1, result1, call2 } = parallelParts(harness);
    const fixed = harness.log.correct(call1, '{"expression":"17 * 23 + 5"}');
    harness.deliver();
    const first = harness.session.subagent(part1)!;
    expect(first.layout.path).toEqual([fixed]);
    expect(first.layout.rows[0]).toEqual({ type: 'superseded', key: `superseded:${fixed}`, stepIds: [call1, result1] });
    expect(harness.session.subagent(part2)!.layout.path).toEqual([call2]);
    expect(harness.session.canCorrect(harness.session.view(fixed)!)).toBe(true);
    expect(harness.session.canCorrect(harness.session.view(call1)!)).toBe(false);
    expect(harness.session.canCorrect(harness.session.view(call2)!)).toBe(true);
  });

  it('picks a branch inside one scope without touching the root’s picks or another scope’s', () => {
    const harness = createHarness();
    const { part1, part2, call1 } = parallelParts(harness);
    const fixed = harness.log.correct(call1, '{"expression":"17 * 23 + 5"}');
    harness.deliver();
    const rootLayout = harness.session.layout;
    const siblingLayout = harness.session.subagent(part2)!.layout;
    harness.session.selectBranch(call1);
    const first = harness.session.subagent(part1)!;
    expect(first.layout.viewingEarlierBranch).toBe(true);
    expect(first.layout.path[0]).toBe(call1);
    expect(first.layout.rows.every((row) => row.type !== 'step' || row.readOnly)).toBe(true);
    expect(harness.session.layout).toBe(rootLayout);
    expect(harness.session.selection.size).toBe(0);
    expect(harness.session.subagent(part2)!.layout).toBe(siblingLayout);
    harness.session.showLiveScope(part1);
    expect(first.layout.path).toEqual([fixed]);
  });

  it('offers a decision on a call inside a waiting sub-agent while its sibling still runs', () => {
    const harness = createHarness();
    const { part2 } = parallelParts(harness);
    const { log } = harness;
    const search = log.step('tool_call', '{"query":"VAT rates"}', { tool: 'web_search', scope: part2 });
    log.askApprovalIn(search, part2);
    harness.deliver();
    const view = harness.session.view(search)!;
    expect(harness.session.info?.status).toBe('running');
    expect(harness.session.awaitsDecision(view)).toBe(true);
    expect(harness.session.awaitingStep).toBe(view);
    log.subagentStatus(part2, 'cancelled');
    harness.deliver();
    expect(harness.session.awaitsDecision(view)).toBe(false);
  });

  it('unfolds the panels around a step it is asked to reveal, nested ones included', () => {
    const harness = createHarness();
    const { part1 } = parallelParts(harness);
    const inner = harness.log.delegate('check', 'Check 395.', part1);
    const deep = harness.log.step('thought', 'Checking.', { scope: inner });
    harness.deliver();
    const outer = harness.session.subagent(part1)!;
    const nested = harness.session.subagent(inner)!;
    expect([nested.depth, nested.parentScope]).toEqual([2, part1]);
    outer.toggle();
    nested.toggle();
    harness.session.reveal(deep);
    expect([outer.expanded, nested.expanded]).toEqual([true, true]);
  });

  it('loads sub-agents from a snapshot, keeping a panel’s folding across a reload', () => {
    const harness = createHarness();
    const { part1, call1, result1 } = parallelParts(harness);
    const first = harness.session.subagent(part1)!;
    first.toggle();
    harness.session.loadSnapshot(snapshotOf(harness));
    expect(harness.session.subagent(part1)).toBe(first);
    expect(first.expanded).toBe(false);
    expect(first.layout.path).toEqual([call1, result1]);
  });
});

function snapshotOf(harness: Harness) {
  const state = harness.session.state;
  return {
    session: { ...state.session },
    steps: Array.from(state.steps.values()),
    chain: [...state.chain],
    seq: state.seq,
    subagents: Array.from(state.subagents.values()),
  };
}
