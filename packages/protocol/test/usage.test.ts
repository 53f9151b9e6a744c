import { describe, expect, it } from 'vitest';
import {
  ReducerError,
  SessionOptionsSchema,
  SessionEventSchema,
  addUsage,
  applyEvent,
  applyEvents,
  budgetTokens,
  createSessionState,
  toSnapshot,
  type SessionEvent,
  type SessionState,
  type Step,
} from '../src/index.js';
import { sessionInfo } from './support/legal-session.js';
import { stepOf } from './support/event-builders.js';

const SID = 'sess_usage';

/** Events of one session, numbered as a server would. */
class Log {
  readonly events: SessionEvent[] = [];
  add(event: Record<string, unknown>): this {
    const seq = this.events.length + 1;
    this.events.push({ ...event, sessionId: SID, seq, at: `2026-01-01T00:00:${String(seq).padStart(2, '0')}.000Z` } as unknown as SessionEvent);
    return this;
  }
}

const step = (stepId: string, parentId: string | null, index: number, kind: Step['kind']): Step => stepOf(stepId, parentId, index, kind);

/** A thought and a tool call from one model call, then an observation and a final answer from a second. */
function twoCalls(): Log {
  return new Log()
    .add({ type: 'session.status', status: 'running' })
    .add({ type: 'step.started', step: step('t', null, 0, 'thought') })
    .add({ type: 'step.completed', stepId: 't', content: 'Let me compute.' })
    .add({ type: 'step.started', step: { ...step('c', 't', 1, 'tool_call'), tool: 'calculator' } })
    .add({ type: 'step.completed', stepId: 'c', content: '{"expression":"2+3"}', tool: 'calculator' })
    .add({ type: 'usage.recorded', model: 'gpt-x', usage: { inputTokens: 1000, outputTokens: 40, reasoningTokens: 12, cachedTokens: 800, costUsd: 0.0002 }, timeToFirstTokenMs: 310, durationMs: 900, stepIds: ['t', 'c'] })
    .add({ type: 'step.started', step: { ...step('o', 'c', 2, 'observation'), tool: 'calculator' } })
    .add({ type: 'step.completed', stepId: 'o', content: '5', tool: 'calculator', result: { value: 5 } })
    .add({ type: 'step.started', step: step('f', 'o', 3, 'final_answer') })
    .add({ type: 'step.completed', stepId: 'f', content: '5' })
    .add({ type: 'usage.recorded', model: 'gpt-x', usage: { inputTokens: 1100, outputTokens: 5 }, timeToFirstTokenMs: 200, stepIds: ['f'] });
}

const fold = (log: Log): SessionState => applyEvents(createSessionState(sessionInfo(SID)), log.events);

describe('usage.recorded in the reducer (PROTOCOL.md §22)', () => {
  it('adds every call to the session totals, optional counts and cost once any call reported them', () => {
    const state = fold(twoCalls());
    expect(state.session.usage).toEqual({ inputTokens: 2100, outputTokens: 45, reasoningTokens: 12, cachedTokens: 800, costUsd: 0.0002, calls: 2 });
  });

  it('puts a call on the last step it produced only, with its model and timing', () => {
    const state = fold(twoCalls());
    expect(state.steps.get('t')!.usage).toBeUndefined();
    expect(state.steps.get('c')!.usage).toEqual({
      model: 'gpt-x',
      inputTokens: 1000,
      outputTokens: 40,
      reasoningTokens: 12,
      cachedTokens: 800,
      costUsd: 0.0002,
      timeToFirstTokenMs: 310,
      durationMs: 900,
    });
    expect(state.steps.get('o')!.usage).toBeUndefined();
    expect(state.steps.get('f')!.usage).toEqual({ model: 'gpt-x', inputTokens: 1100, outputTokens: 5, timeToFirstTokenMs: 200 });
  });

  it('counts a call that produced no step in the totals only', () => {
    const log = new Log().add({ type: 'session.status', status: 'running' }).add({ type: 'usage.recorded', model: 'm', usage: { inputTokens: 7, outputTokens: 3 }, stepIds: [] });
    const state = fold(log);
    expect(state.session.usage).toEqual({ inputTokens: 7, outputTokens: 3, calls: 1 });
    expect(state.steps.size).toBe(0);
  });

  it('keeps counting the calls of steps a correction invalidated, and a late record of one', () => {
    const log = twoCalls()
      .add({ type: 'step.corrected', step: { ...step('c2', 't', 1, 'tool_call'), status: 'corrected', content: '{"expression":"2+4"}', revision: 1, correctionOf: 'c', tool: 'calculator' }, revision: 1 })
      .add({ type: 'steps.invalidated', stepIds: ['c', 'o', 'f'], byStepId: 'c2', revision: 1 })
      .add({ type: 'usage.recorded', model: 'gpt-x', usage: { inputTokens: 10, outputTokens: 1 }, stepIds: ['f'] });
    const state = fold(log);
    expect(state.session.usage).toMatchObject({ inputTokens: 2110, outputTokens: 46, calls: 3 });
    expect(state.steps.get('c')!.status).toBe('invalidated');
    expect(state.steps.get('c')!.usage?.inputTokens).toBe(1000);
  });

  it('refuses a record naming a step the session does not have, leaving the state unchanged', () => {
    const state = fold(twoCalls());
    const before = toSnapshot(state);
    const bad = { type: 'usage.recorded', sessionId: SID, seq: state.seq + 1, at: 'x', model: 'm', usage: { inputTokens: 1, outputTokens: 1 }, stepIds: ['nope'] } as SessionEvent;
    expect(() => applyEvent(state, bad)).toThrow(ReducerError);
    expect(toSnapshot(state)).toEqual(before);
  });

  it('gives a snapshot that folds on to the same totals as the whole log', () => {
    const log = twoCalls();
    const half = applyEvents(createSessionState(sessionInfo(SID)), log.events.slice(0, 6));
    const resumed = applyEvents(createSessionState(toSnapshot(half)), log.events.slice(6));
    expect(toSnapshot(resumed)).toEqual(toSnapshot(fold(log)));
  });

  it('takes the event as the schema parses it, unknown fields and all', () => {
    const event = twoCalls().events[5]!;
    expect(SessionEventSchema.parse({ ...event, extra: 1 }).type).toBe('usage.recorded');
    expect(SessionEventSchema.safeParse({ ...event, usage: { inputTokens: -1, outputTokens: 0 } }).success).toBe(false);
  });
});

describe('failure reasons on session.status', () => {
  it('sets failure with failed and clears it with the next status', () => {
    const log = new Log()
      .add({ type: 'session.status', status: 'running' })
      .add({ type: 'session.status', status: 'failed', error: 'Token budget spent.', failure: 'budget' });
    const state = fold(log);
    expect(state.session).toMatchObject({ status: 'failed', error: 'Token budget spent.', failure: 'budget' });
    applyEvent(state, { type: 'session.status', sessionId: SID, seq: 3, at: 'x', status: 'running' });
    expect(state.session.failure).toBeUndefined();
    expect(state.session.error).toBeUndefined();
  });
});

describe('usage helpers', () => {
  it('budgetTokens counts input and output', () => {
    expect(budgetTokens(undefined)).toBe(0);
    expect(budgetTokens({ inputTokens: 10, outputTokens: 5 })).toBe(15);
  });

  it('addUsage starts totals from nothing', () => {
    expect(addUsage(undefined, { inputTokens: 1, outputTokens: 2, costUsd: 0 })).toEqual({ inputTokens: 1, outputTokens: 2, costUsd: 0, calls: 1 });
  });

  it('options.maxTokens is a positive whole number', () => {
    expect(SessionOptionsSchema.safeParse({ maxTokens: 1000 }).success).toBe(true);
    expect(SessionOptionsSchema.safeParse({ maxTokens: 0 }).success).toBe(false);
    expect(SessionOptionsSchema.safeParse({ maxTokens: 1.5 }).success).toBe(false);
  });
});
