import { describe, expect, it } from 'vitest';
import { rootStepOf, rowIndexOfStep } from '$lib/chain/virtual-rows/row-of-step.js';
import { createHarness } from '../../../support/chain-harness.js';

describe('rowIndexOfStep', () => {
  it('finds the row of a step, of a folded thought and of a sub-agent step (its delegate call’s row)', () => {
    const harness = createHarness();
    const { log } = harness;
    const t1 = log.step('thought', 'one');
    const t2 = log.step('thought', 'two');
    const action = log.step('action', 'act');
    const part = log.delegate('part 1', 'What is 17 * 23 + 4?');
    const inner = log.step('tool_call', '{"expression":"17 * 23 + 4"}', { tool: 'calculator', scope: part });
    const answer = log.step('final_answer', '395');
    harness.deliver();
    const { rows } = harness.session.layout;
    const state = harness.session.state;
    expect(rows.map((row) => row.type)).toEqual(['thoughts', 'step', 'subagents', 'step']);
    expect(rowIndexOfStep(rows, state, t1)).toBe(0);
    expect(rowIndexOfStep(rows, state, t2)).toBe(0);
    expect(rowIndexOfStep(rows, state, action)).toBe(1);
    expect(rootStepOf(state, inner)).toBe(part);
    expect(rowIndexOfStep(rows, state, inner)).toBe(2);
    expect(rowIndexOfStep(rows, state, answer)).toBe(3);
    // A wrong hint costs a search, not a wrong answer.
    expect(rowIndexOfStep(rows, state, answer, 0)).toBe(3);
    expect(rowIndexOfStep(rows, state, 'no-such-step')).toBe(-1);
  });

  it('finds a step on a long chain from its index, wherever the folds put its row', () => {
    const harness = createHarness();
    const ids = Array.from({ length: 3_000 }, (_, i) => harness.log.step(i % 2 === 0 ? 'thought' : 'action', `step ${i}`));
    harness.deliver();
    const { rows } = harness.session.layout;
    expect(rowIndexOfStep(rows, harness.session.state, ids[2_345]!)).toBe(2_345);
    expect(rowIndexOfStep(rows, harness.session.state, ids[0]!)).toBe(0);
  });
});
