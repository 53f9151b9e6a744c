import type { SessionState, Step } from '@interthought/protocol';
import { createSessionState } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { alignChains, finalAnswerOf, runTimeMs } from '$lib/compare/chain-alignment.js';

function step(stepId: string, index: number, kind: Step['kind'], content: string, copiedFrom?: string): Step {
  return {
    stepId,
    parentId: null,
    index,
    kind,
    content,
    status: 'completed',
    revision: 0,
    ...(copiedFrom === undefined ? {} : { copiedFrom: { sessionId: 'src', stepId: copiedFrom } }),
  } as Step;
}

const source = [step('s0', 0, 'thought', 'think'), step('s1', 1, 'action', 'act'), step('s2', 2, 'final_answer', 'five')];

describe('alignChains', () => {
  it('folds a fork’s copies of its source into the common prefix and aligns the rest by index', () => {
    const fork = [step('f0', 0, 'thought', 'think', 's0'), step('f1', 1, 'action', 'act', 's1'), step('f2', 2, 'thought', 'hmm'), step('f3', 3, 'final_answer', 'six')];
    const alignment = alignChains(source, fork);
    expect(alignment.common).toBe(2);
    expect(alignment.rows.map((row) => [row.index, row.a?.stepId, row.b?.stepId])).toEqual([
      [2, 's2', 'f2'],
      [3, undefined, 'f3'],
    ]);
  });

  it('finds the prefix of two forks of one source by their common originals', () => {
    const one = [step('a0', 0, 'thought', 'think', 's0'), step('a1', 1, 'final_answer', 'x')];
    const two = [step('b0', 0, 'thought', 'think', 's0'), step('b1', 1, 'final_answer', 'y')];
    expect(alignChains(one, two).common).toBe(1);
  });

  it('has no common prefix for unrelated sessions, even with equal text', () => {
    const other = [step('o0', 0, 'thought', 'think')];
    expect(alignChains(source, other)).toMatchObject({ common: 0, rows: [{ index: 0 }, { index: 1 }, { index: 2 }] });
  });
});

describe('finalAnswerOf and runTimeMs', () => {
  it('takes the last final answer of a chain', () => {
    expect(finalAnswerOf(source)?.content).toBe('five');
    expect(finalAnswerOf(source.slice(0, 2))).toBeUndefined();
  });

  it('counts the open running interval up to now', () => {
    const state: SessionState = createSessionState();
    expect(runTimeMs(state, 0)).toBeUndefined();
    state.runTime = { totalMs: 1500, runningSince: '2026-01-01T00:00:00.000Z' };
    expect(runTimeMs(state, Date.parse('2026-01-01T00:00:02.000Z'))).toBe(3500);
    state.runTime = { totalMs: 1500 };
    expect(runTimeMs(state, Date.parse('2026-01-01T00:00:02.000Z'))).toBe(1500);
  });
});
