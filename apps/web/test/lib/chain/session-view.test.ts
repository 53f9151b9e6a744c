import { createSessionState, applyEvents, toSnapshot } from '@interthought/protocol';
import { flushSync } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import { SessionView } from '$lib/chain/session-view.svelte.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';
import { watchRuns } from '../../support/watch.svelte.js';

function setup() {
  const log = new EventLog();
  const frames = new ManualFrames();
  const onDesync = vi.fn();
  const session = new SessionView(log.sessionId, { schedule: frames.schedule, onDesync });
  session.loadSnapshot(log.emptySnapshot());
  return { log, frames, session, onDesync };
}

describe('SessionView: batching', () => {
  it('folds every event that arrived during a frame in one flush', () => {
    const { log, frames, session } = setup();
    const stepId = log.start('thought');
    for (let i = 0; i < 50; i++) log.delta(stepId, `w${i} `);
    for (const event of log.events) session.enqueue(event);

    expect(frames.scheduled).toBe(1);
    expect(session.view(stepId)).toBeUndefined();
    frames.run();
    expect(session.view(stepId)?.content).toBe(Array.from({ length: 50 }, (_, i) => `w${i} `).join(''));
    expect(session.cursor).toBe(51);
  });

  it('schedules the next frame only once new events arrive', () => {
    const { log, frames, session } = setup();
    const stepId = log.start('thought');
    session.enqueue(log.events[0]!);
    frames.run();
    expect(frames.pending).toBeNull();
    log.delta(stepId, 'hello');
    session.enqueue(log.events[1]!);
    expect(frames.scheduled).toBe(2);
  });

  it('keeps events that arrive before the snapshot and applies those after it', () => {
    const log = new EventLog();
    const frames = new ManualFrames();
    const session = new SessionView(log.sessionId, { schedule: frames.schedule });
    const first = log.step('thought', 'First thought.');
    const snapshotAt = log.events.length;
    const state = applyEvents(createSessionState(log.info), log.events);
    const second = log.step('action', 'Compute it.');
    // Live events can overtake a slow snapshot; the ones it already contains must not apply twice.
    for (const event of log.events) session.enqueue(event);
    frames.run();
    expect(session.phase).toBe('loading');
    session.loadSnapshot({ ...toSnapshot(state), seq: snapshotAt });
    expect(session.view(first)?.content).toBe('First thought.');
    expect(session.view(second)?.content).toBe('Compute it.');
    expect(session.layout.path).toEqual([first, second]);
  });

  it('skips events it already has (a replay after a resume) instead of doubling text', () => {
    const { log, frames, session, onDesync } = setup();
    const stepId = log.step('thought', 'one two three');
    for (const event of log.events) session.enqueue(event);
    frames.run();
    for (const event of log.events.slice(2)) session.enqueue(event);
    frames.run();
    expect(session.view(stepId)?.content).toBe('one two three');
    expect(onDesync).not.toHaveBeenCalled();
  });

  it('asks for a fresh snapshot when events are missing, keeping what it could apply', () => {
    const { log, frames, session, onDesync } = setup();
    const stepId = log.start('thought');
    log.delta(stepId, 'a ');
    log.delta(stepId, 'b ');
    log.delta(stepId, 'c ');
    session.enqueue(log.events[0]!);
    session.enqueue(log.events[1]!);
    session.enqueue(log.events[3]!);
    frames.run();
    expect(onDesync).toHaveBeenCalledTimes(1);
    expect(onDesync.mock.calls[0]![0].code).toBe('SEQ_GAP');
    expect(session.view(stepId)?.content).toBe('a ');
  });
});

describe('SessionView: step views', () => {
  it('gives each step its own view and updates only the step an event touched', () => {
    const { log, frames, session } = setup();
    const thought = log.step('thought', 'Divide distance by time.');
    const action = log.start('action');
    for (const event of log.events) session.enqueue(event);
    frames.run();
    const thoughtView = session.view(thought)!;
    const before = { content: thoughtView.content, status: thoughtView.status };

    // A delta to the action must not write to the thought's view.
    const thoughtRenders = watchRuns(() => {
      void thoughtView.content;
      void thoughtView.status;
    });
    const actionRenders = watchRuns(() => void session.view(action)!.content);
    log.delta(action, 'Use the calculator');
    session.enqueue(log.events[log.events.length - 1]!);
    flushSync(() => frames.run());
    expect(session.view(action)?.content).toBe('Use the calculator');
    expect({ content: thoughtView.content, status: thoughtView.status }).toEqual(before);
    expect(thoughtRenders.runs()).toBe(1);
    expect(actionRenders.runs()).toBe(2);
    thoughtRenders.stop();
    actionRenders.stop();
  });

  it('marks where each frame’s new text begins, for the fade-in, and settles it on completion', () => {
    const { log, frames, session } = setup();
    const stepId = log.start('thought');
    log.delta(stepId, 'Hello ');
    for (const event of log.events) session.enqueue(event);
    frames.run();
    log.delta(stepId, 'world');
    session.enqueue(log.events[log.events.length - 1]!);
    frames.run();
    const view = session.view(stepId)!;
    expect(view.freshStarts).toEqual([0, 6]);
    expect(view.content.slice(view.freshStarts[1])).toBe('world');
    log.complete(stepId);
    session.enqueue(log.events[log.events.length - 1]!);
    frames.run();
    expect(view.status).toBe('completed');
    expect(view.freshStarts).toEqual([]);
  });

  it('shows text streaming faster than anyone reads without fading it in, and says so for the caret', () => {
    const { log, frames, session } = setup();
    const stepId = log.start('thought');
    log.delta(stepId, 'Hello ');
    for (const event of log.events) session.enqueue(event);
    frames.run();
    const view = session.view(stepId)!;
    expect([view.fast, view.freshStarts]).toEqual([false, [0]]);
    // 5,000 characters within the same instant: thousands a second, a firehose, not a reader's pace.
    log.delta(stepId, 'x'.repeat(5_000));
    session.enqueue(log.events[log.events.length - 1]!);
    frames.run();
    expect(view.fast).toBe(true);
    expect(view.freshStarts).toEqual([]);
    expect(view.content).toHaveLength(5_006);
  });

  it('takes the tool name and structured result from the events', () => {
    const { log, frames, session } = setup();
    const call = log.step('tool_call', '{"expression":"240 * 0.15"}', { tool: 'calculator' });
    const observation = log.start('observation', { tool: 'calculator' });
    log.delta(observation, '36');
    log.complete(observation, { result: { value: 36 } });
    for (const event of log.events) session.enqueue(event);
    frames.run();
    expect(session.view(call)?.tool).toBe('calculator');
    expect(session.view(observation)?.result).toEqual({ value: 36 });
  });
});

describe('SessionView: corrections and branches', () => {
  function corrected() {
    const context = setup();
    const { log, frames, session } = context;
    const thought = log.step('thought', 'I will multiply.');
    const call = log.step('tool_call', '{"expression":"240 * 0.15"}', { tool: 'calculator' });
    const observation = log.step('observation', '36', { tool: 'calculator' });
    const answer = log.step('final_answer', '15% of 240 is 36.');
    const fixed = log.correct(call, '{"expression":"240 * 0.2"}');
    for (const event of log.events) session.enqueue(event);
    frames.run();
    return { ...context, thought, call, observation, answer, fixed };
  }

  it('puts the corrected step in place and folds what it superseded just above it', () => {
    const { session, thought, call, observation, answer, fixed } = corrected();
    expect(session.layout.path).toEqual([thought, fixed]);
    expect(session.layout.rows.map((row) => row.type)).toEqual(['step', 'superseded', 'step']);
    const fold = session.layout.rows[1]!;
    expect(fold.type === 'superseded' && fold.stepIds).toEqual([call, observation, answer]);
    expect(session.view(call)?.status).toBe('invalidated');
    expect(session.info?.revision).toBe(1);
  });

  it('lets only steps on the live chain be corrected, and none once cancelled', () => {
    const { log, frames, session, thought, call, fixed } = corrected();
    expect(session.canCorrect(session.view(thought)!)).toBe(true);
    expect(session.canCorrect(session.view(fixed)!)).toBe(true);
    expect(session.canCorrect(session.view(call)!)).toBe(false);
    log.status('cancelled');
    session.enqueue(log.events[log.events.length - 1]!);
    frames.run();
    expect(session.canCorrect(session.view(thought)!)).toBe(false);
  });

  it('keeps showing a deleted session but lets nothing be corrected', () => {
    const { log, frames, session, thought, fixed } = corrected();
    log.deleted();
    session.enqueue(log.events[log.events.length - 1]!);
    frames.run();
    expect(session.deleted).toBe(true);
    expect(session.layout.path).toEqual([thought, fixed]);
    expect(session.canCorrect(session.view(thought)!)).toBe(false);
  });

  it('shows an earlier branch read-only and returns to the live chain', () => {
    const { log, frames, session, thought, call, observation, answer, fixed } = corrected();
    const newObservation = log.step('observation', '48', { tool: 'calculator' });
    session.enqueue(log.events[log.events.length - 3]!);
    session.enqueue(log.events[log.events.length - 2]!);
    session.enqueue(log.events[log.events.length - 1]!);
    frames.run();

    const picker = session.layout.rows.find((row) => row.type === 'step' && row.stepId === fixed);
    expect(picker?.type === 'step' && picker.branch).toEqual({ position: 2, total: 2, alternatives: [call, fixed] });

    session.selectBranch(call);
    expect(session.layout.viewingEarlierBranch).toBe(true);
    expect(session.layout.path).toEqual([thought, call, observation, answer]);
    const rows = session.layout.rows.filter((row) => row.type === 'step');
    expect(rows.map((row) => row.type === 'step' && row.readOnly)).toEqual([false, true, true, true]);

    session.selectBranch(fixed);
    expect(session.layout.viewingEarlierBranch).toBe(false);
    expect(session.layout.path).toEqual([thought, fixed, newObservation]);

    session.selectBranch(call);
    session.showLiveChain();
    expect(session.layout.path).toEqual([thought, fixed, newObservation]);
  });
});

describe('SessionView: a growing chain', () => {
  it('does not make the cards already shown re-check whether they can be corrected when a step is appended', () => {
    const { log, frames, session } = setup();
    const first = log.step('thought', 'first');
    for (const event of log.events) session.enqueue(event);
    flushSync(() => frames.run());
    const view = session.view(first)!;
    const checks = watchRuns(() => void session.canCorrect(view));
    const sent = log.events.length;
    log.step('action', 'second');
    log.step('observation', 'third');
    for (const event of log.events.slice(sent)) session.enqueue(event);
    flushSync(() => frames.run());
    expect(session.layout.path).toHaveLength(3);
    expect(checks.runs()).toBe(1);
    checks.stop();
  });

  it('makes them re-check after a correction, which takes later steps off the chain', () => {
    const { log, frames, session } = setup();
    const first = log.step('thought', 'first');
    const second = log.step('action', 'second');
    for (const event of log.events) session.enqueue(event);
    flushSync(() => frames.run());
    const view = session.view(second)!;
    expect(session.canCorrect(view)).toBe(true);
    const checks = watchRuns(() => void session.canCorrect(view));
    const sent = log.events.length;
    log.correct(first, 'first, better');
    for (const event of log.events.slice(sent)) session.enqueue(event);
    flushSync(() => frames.run());
    expect(checks.runs()).toBeGreaterThan(1);
    expect(session.canCorrect(view)).toBe(false);
    checks.stop();
  });
});
