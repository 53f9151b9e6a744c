import { applyEvents, createSessionState } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { chainSource, layoutChain, relayoutFrom } from '$lib/chain/chain-rows.js';
import { EventLog } from '../../support/session-events.js';

const stateOf = (log: EventLog) => applyEvents(createSessionState(log.info), log.events);

/** The multi-part task as the demo agent splits it: a thought, a batch of two delegate calls. */
function splitTask(log: EventLog) {
  const thought = log.step('thought', 'Two independent parts: one sub-agent each.');
  const part1 = log.delegate('part 1', 'What is 17 * 23 + 4?');
  const part2 = log.delegate('part 2', 'What is 15% of 240?');
  return { thought, part1, part2 };
}

describe('layoutChain with sub-agents', () => {
  it('draws delegate calls one after another as one batch row, in call order', () => {
    const log = new EventLog();
    const { thought, part1, part2 } = splitTask(log);
    const { rows, path } = layoutChain(stateOf(log));
    expect(path).toEqual([thought, part1, part2]);
    expect(rows).toEqual([
      { type: 'step', key: thought, stepId: thought, readOnly: false },
      { type: 'subagents', key: `subagents:${part1}`, calls: [{ stepId: part1, readOnly: false }, { stepId: part2, readOnly: false }] },
    ]);
  });

  it('ends a batch at any other step, and gives a lone delegate call a row of its own', () => {
    const log = new EventLog();
    const first = log.delegate('research', 'Find the numbers.');
    const observation = log.step('observation', '42', { tool: 'delegate' });
    const calc = log.step('tool_call', '{"expression":"1+1"}', { tool: 'calculator' });
    const second = log.delegate('check', 'Check the result.');
    const { rows } = layoutChain(stateOf(log));
    expect(rows.map((row) => row.type)).toEqual(['subagents', 'step', 'step', 'subagents']);
    expect(rows[0]!.type === 'subagents' && rows[0]!.calls.map((call) => call.stepId)).toEqual([first]);
    expect(rows[1]!.type === 'step' && rows[1]!.stepId).toBe(observation);
    expect(rows[2]!.type === 'step' && rows[2]!.stepId).toBe(calc);
    expect(rows[3]!.type === 'subagents' && rows[3]!.calls.map((call) => call.stepId)).toEqual([second]);
  });

  it('keeps the sub-agents’ steps out of the root rows and lays each scope out on its own', () => {
    const log = new EventLog();
    const { part1, part2 } = splitTask(log);
    const a1 = log.step('thought', 'Multiply first.', { scope: part1 });
    const a2 = log.step('tool_call', '{"expression":"17 * 23 + 4"}', { tool: 'calculator', scope: part1 });
    const b1 = log.step('tool_call', '{"expression":"0.15 * 240"}', { tool: 'calculator', scope: part2 });
    const state = stateOf(log);
    expect(layoutChain(state).path).not.toContain(a1);
    expect(layoutChain(state, new Map(), chainSource(state, part1)).path).toEqual([a1, a2]);
    expect(layoutChain(state, new Map(), chainSource(state, part2)).rows).toEqual([{ type: 'step', key: b1, stepId: b1, readOnly: false }]);
  });

  it('gives a corrected step inside a scope its fold of superseded steps and its branch picker, in that scope only', () => {
    const log = new EventLog();
    const { part1, part2 } = splitTask(log);
    const call = log.step('tool_call', '{"expression":"17 * 23 + 4"}', { tool: 'calculator', scope: part1 });
    const result = log.step('observation', '395', { tool: 'calculator', scope: part1 });
    log.step('observation', '36', { tool: 'calculator', scope: part2 });
    const fixed = log.correct(call, '{"expression":"17 * 23 + 5"}');
    const state = stateOf(log);
    const { rows } = layoutChain(state, new Map(), chainSource(state, part1));
    expect(rows.map((row) => row.type)).toEqual(['superseded', 'step']);
    expect(rows[0]!.type === 'superseded' && rows[0]!.stepIds).toEqual([call, result]);
    expect(rows[1]!.type === 'step' && rows[1]!.branch).toEqual({ position: 2, total: 2, alternatives: [call, fixed] });
    expect(layoutChain(state, new Map(), chainSource(state, part2)).rows.map((row) => row.type)).toEqual(['step']);
  });

  it('shows the sub-agent of an invalidated delegate call as it last was, read-only', () => {
    const log = new EventLog();
    const { part1 } = splitTask(log);
    const a1 = log.step('thought', 'Multiply first.', { scope: part1 });
    log.correct(part1, JSON.stringify({ task: 'What is 17 * 24?', name: 'part 1' }), undefined, 'c-1', { alsoInvalidated: [a1] });
    const state = stateOf(log);
    const source = chainSource(state, part1);
    expect(source.historic).toBe(true);
    const layout = layoutChain(state, new Map(), source);
    expect(layout.rows).toEqual([{ type: 'step', key: a1, stepId: a1, readOnly: true }]);
  });
});

describe('relayoutFrom with sub-agents', () => {
  it('reopens a batch at the tail when the next delegate call arrives', () => {
    const log = new EventLog();
    log.step('thought', 'Split it.');
    log.delegate('part 1', 'one');
    const before = layoutChain(stateOf(log));
    const part2 = log.delegate('part 2', 'two');
    const state = stateOf(log);
    const grown = relayoutFrom(state, before, state.steps.get(part2)!.index);
    expect(grown.rows).toEqual(layoutChain(state).rows);
    expect(grown.rows[0]).toBe(before.rows[0]);
  });

  it('grows a scope’s chain at its tail like the root’s', () => {
    const log = new EventLog();
    const { part1 } = splitTask(log);
    log.step('thought', 'one', { scope: part1 });
    const a2 = log.step('action', 'two', { scope: part1 });
    let state = stateOf(log);
    const before = layoutChain(state, new Map(), chainSource(state, part1));
    log.step('final_answer', '395', { scope: part1 });
    state = stateOf(log);
    const grown = relayoutFrom(state, before, 2, chainSource(state, part1));
    expect(grown.rows).toEqual(layoutChain(state, new Map(), chainSource(state, part1)).rows);
    expect(grown.rows[1]).toBe(before.rows[1]);
    expect(before.rows[1]!.type === 'step' && before.rows[1]!.stepId).toBe(a2);
  });
});
