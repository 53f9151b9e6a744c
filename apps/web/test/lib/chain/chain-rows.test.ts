import { applyEvents, createSessionState } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { editedBeforeRun, layoutChain, supersededBy } from '$lib/chain/chain-rows.js';
import { EventLog } from '../../support/session-events.js';

const stateOf = (log: EventLog) => applyEvents(createSessionState(log.info), log.events);

describe('layoutChain', () => {
  it('lays out a clean chain as one row per step', () => {
    const log = new EventLog();
    const ids = [log.step('thought', 'a'), log.step('action', 'b'), log.step('final_answer', 'c')];
    const layout = layoutChain(stateOf(log));
    expect(layout.rows).toEqual(ids.map((stepId) => ({ type: 'step', key: stepId, stepId, readOnly: false })));
    expect(layout.viewingEarlierBranch).toBe(false);
  });

  it('folds a run of completed thoughts into one row, but not a single thought', () => {
    const log = new EventLog();
    const first = log.step('thought', 'one');
    const second = log.step('thought', 'two');
    const third = log.step('thought', 'three');
    const action = log.step('action', 'act');
    const lone = log.step('thought', 'alone');
    const { rows } = layoutChain(stateOf(log));
    expect(rows.map((row) => row.type)).toEqual(['thoughts', 'step', 'step']);
    expect(rows[0]!.type === 'thoughts' && rows[0]!.stepIds).toEqual([first, second, third]);
    expect(rows[1]!.type === 'step' && rows[1]!.stepId).toBe(action);
    expect(rows[2]!.type === 'step' && rows[2]!.stepId).toBe(lone);
  });

  it('keeps a run of thoughts open while one of them is still streaming', () => {
    const log = new EventLog();
    log.step('thought', 'one');
    const streaming = log.start('thought');
    log.delta(streaming, 'thinking');
    const { rows } = layoutChain(stateOf(log));
    expect(rows.map((row) => row.type)).toEqual(['step', 'step']);
  });

  it('draws a call edited before it ran as one step: no superseded fold, no branch picker (PROTOCOL.md §19.3)', () => {
    const log = new EventLog();
    const thought = log.step('thought', 'I need 15% of 240.');
    const call = log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
    log.askApproval(call);
    log.decide(call, 'edited', 'c-1');
    const edited = log.correct(call, '{"expression":"240 * 0.15"}', undefined, 'c-1', { approval: { state: 'edited', by: 'c-1', at: '2025-01-01T10:00:30.000Z' } });
    log.status('running');
    const observation = log.step('observation', '36', { tool: 'calculator' });
    const state = stateOf(log);
    const { rows, path } = layoutChain(state);
    expect(path).toEqual([thought, edited, observation]);
    expect(rows).toEqual([thought, edited, observation].map((stepId) => ({ type: 'step', key: stepId, stepId, readOnly: false })));
    expect(supersededBy(state, state.steps.get(edited)!)).toEqual([]);
    expect(editedBeforeRun(state, state.steps.get(edited)!)).toBe(true);
    // A later correction of the call that ran makes a real branch: the edited-away proposal is no alternative in it.
    const corrected = log.correct(edited, '{"expression":"240 * 0.2"}');
    const later = layoutChain(stateOf(log));
    const row = later.rows.find((entry) => entry.type === 'step' && entry.stepId === corrected);
    expect(row?.type === 'step' && row.branch).toEqual({ position: 2, total: 2, alternatives: [edited, corrected] });
    expect(later.rows.some((entry) => entry.type === 'superseded')).toBe(true);
  });

  it('folds the superseded steps of each correction above the step that replaced them', () => {
    const log = new EventLog();
    const a = log.step('thought', 'a');
    const b = log.step('action', 'b');
    const c = log.step('tool_call', '{"expression":"1+1"}', { tool: 'calculator' });
    const bFixed = log.correct(b, 'b, better');
    const c2 = log.step('tool_call', '{"expression":"2+2"}', { tool: 'calculator' });
    const d = log.step('observation', '4');
    const dFixed = log.correct(d, '5');
    const { rows, path } = layoutChain(stateOf(log));
    expect(path).toEqual([a, bFixed, c2, dFixed]);
    expect(rows.map((row) => row.type)).toEqual(['step', 'superseded', 'step', 'step', 'superseded', 'step']);
    expect(rows[1]!.type === 'superseded' && rows[1]!.stepIds).toEqual([b, c]);
    expect(rows[4]!.type === 'superseded' && rows[4]!.stepIds).toEqual([d]);
  });

  it('attaches the branch position to a step with alternatives', () => {
    const log = new EventLog();
    log.step('thought', 'a');
    const b = log.step('action', 'b');
    const b2 = log.correct(b, 'b2');
    const b3 = log.correct(b2, 'b3');
    const { rows } = layoutChain(stateOf(log));
    const row = rows.find((entry) => entry.type === 'step' && entry.stepId === b3);
    expect(row?.type === 'step' && row.branch).toEqual({ position: 3, total: 3, alternatives: [b, b2, b3] });
  });

  it('follows an earlier branch down the chain it had when it was live', () => {
    const log = new EventLog();
    const a = log.step('thought', 'a');
    const b = log.step('action', 'b');
    const c = log.step('tool_call', 'c');
    const cFixed = log.correct(c, 'c2');
    const d = log.step('observation', 'd');
    log.correct(b, 'b2');
    // Under b there are c (old) and c2 (newer): the branch b was last live with went through c2.
    const { path, viewingEarlierBranch, rows } = layoutChain(stateOf(log), new Map([[a, b]]));
    expect(path).toEqual([a, b, cFixed, d]);
    expect(viewingEarlierBranch).toBe(true);
    expect(rows.every((row) => row.type === 'step')).toBe(true);
    expect(rows.slice(1).every((row) => row.type === 'step' && row.readOnly)).toBe(true);
  });

  it('ignores a selection naming a step that is not an alternative there', () => {
    const log = new EventLog();
    const a = log.step('thought', 'a');
    const b = log.step('action', 'b');
    const { path } = layoutChain(stateOf(log), new Map([[a, 'nope']]));
    expect(path).toEqual([a, b]);
  });
});

describe('supersededBy', () => {
  it('is empty for a step that corrects nothing', () => {
    const log = new EventLog();
    const a = log.step('thought', 'a');
    const state = stateOf(log);
    expect(supersededBy(state, state.steps.get(a)!)).toEqual([]);
  });
});
