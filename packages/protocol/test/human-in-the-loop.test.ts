import { describe, expect, it } from 'vitest';
import {
  AskUserInputSchema,
  BreakpointsSchema,
  InputProvideRequestSchema,
  answerResult,
  applyEvents,
  breakpointDetail,
  createSessionState,
  inputRefusal,
  isAwaitingInput,
  matchBreakpoint,
  parseAskUserInput,
  pausedAtBreakpoint,
  pendingQuestions,
  toSnapshot,
  type SessionEvent,
} from '../src/index.js';
import { eventBuilder, stepOf } from './support/event-builders.js';

const SID = 's_hitl';
const info = { sessionId: SID, task: 'What if it were 25?', agent: 'demo', status: 'running' as const, revision: 0, createdAt: '2025-01-01T00:00:00.000Z' };

describe('ask_user input (PROTOCOL.md §25.1)', () => {
  it('takes a question with distinct choices, and nothing else', () => {
    expect(AskUserInputSchema.safeParse({ question: 'Which number?', choices: ['20', '5'] }).success).toBe(true);
    expect(AskUserInputSchema.safeParse({ question: '' }).success).toBe(false);
    expect(AskUserInputSchema.safeParse({ question: 'q', choices: ['a', 'a'] }).success).toBe(false);
    expect(AskUserInputSchema.safeParse({ question: 'q', choices: [] }).success).toBe(false);
    expect(AskUserInputSchema.safeParse({ question: 'q', choices: Array.from({ length: 11 }, (_, i) => `c${i}`) }).success).toBe(false);
    expect(AskUserInputSchema.safeParse({ question: 'q', urgent: true }).success).toBe(false);
  });

  it('reads a call content, or says it is no question', () => {
    expect(parseAskUserInput('{"question":"Which?","choices":["a","b"]}')).toEqual({ question: 'Which?', choices: ['a', 'b'] });
    expect(parseAskUserInput('Which?')).toBeUndefined();
    expect(parseAskUserInput('{"choices":["a"]}')).toBeUndefined();
  });

  it('records which choice an answer is, when it is one', () => {
    expect(answerResult('5', 'u1', 'Ada', ['20', '5'])).toEqual({ answer: '5', by: 'u1', byName: 'Ada', choice: 1 });
    expect(answerResult('the twenty', 'u1', undefined, ['20', '5'])).toEqual({ answer: 'the twenty', by: 'u1' });
  });

  it('bounds an answer like a message', () => {
    const request = { type: 'input.provide', sessionId: SID, stepId: 'q1' };
    expect(InputProvideRequestSchema.safeParse({ ...request, text: 'x' }).success).toBe(true);
    expect(InputProvideRequestSchema.safeParse({ ...request, text: '' }).success).toBe(false);
    expect(InputProvideRequestSchema.safeParse({ ...request, text: 'x'.repeat(20_001) }).success).toBe(false);
  });
});

describe('breakpoints (PROTOCOL.md §25.5)', () => {
  it('matches by kind and tool glob, the first in the list, never a user message', () => {
    const list = BreakpointsSchema.parse([{ kind: 'thought' }, { tool: 'mcp__*' }, { kind: 'tool_call', tool: 'calculator' }]);
    expect(matchBreakpoint(list, 'thought', undefined)).toEqual({ breakpoint: { kind: 'thought' }, index: 0 });
    expect(matchBreakpoint(list, 'observation', 'mcp__fs__read')).toEqual({ breakpoint: { tool: 'mcp__*' }, index: 1 });
    expect(matchBreakpoint(list, 'tool_call', 'calculator')).toEqual({ breakpoint: { kind: 'tool_call', tool: 'calculator' }, index: 2 });
    expect(matchBreakpoint(list, 'tool_call', 'unit_converter')).toBeUndefined();
    expect(matchBreakpoint('all', 'final_answer', undefined)).toEqual({ breakpoint: {} });
    expect(matchBreakpoint('all', 'user_message', undefined)).toBeUndefined();
    expect(matchBreakpoint([{}], 'action', undefined)).toEqual({ breakpoint: {}, index: 0 });
    expect(matchBreakpoint(undefined, 'thought', undefined)).toBeUndefined();
  });

  it('refuses a breakpoint on user messages, unknown fields and an empty list', () => {
    expect(BreakpointsSchema.safeParse([{ kind: 'user_message' }]).success).toBe(false);
    expect(BreakpointsSchema.safeParse([{ kind: 'thought', when: 'always' }]).success).toBe(false);
    expect(BreakpointsSchema.safeParse([]).success).toBe(false);
    expect(BreakpointsSchema.safeParse('every').success).toBe(false);
  });

  it('says where the run stopped', () => {
    expect(breakpointDetail('tool_call', 'calculator')).toBe('Stopped at a breakpoint: before calculator runs');
    expect(breakpointDetail('thought', undefined)).toBe('Stopped at a breakpoint: after a thought');
  });
});

/** A session that asks, is answered, has an approval remembered and forgotten, and stops at a breakpoint. */
function session() {
  const { ev } = eventBuilder(SID);
  const asked: SessionEvent[] = [
    ev({ type: 'session.status', status: 'running', revision: 0 }),
    ev({ type: 'step.started', step: stepOf('t1', null, 0, 'thought') }),
    ev({ type: 'step.completed', stepId: 't1', content: '25 could replace 20 or 5.' }),
    ev({ type: 'step.started', step: stepOf('q1', 't1', 1, 'tool_call') }),
    ev({ type: 'step.completed', stepId: 'q1', content: '{"question":"Which number should 25 replace?","choices":["20","5"]}', tool: 'ask_user' }),
    ev({ type: 'input.requested', stepId: 'q1', question: 'Which number should 25 replace?', choices: ['20', '5'] }),
    ev({ type: 'session.status', status: 'waiting', revision: 0, detail: 'Waiting for your answer: Which number should 25 replace?' }),
  ];
  const answered: SessionEvent[] = [
    ev({ type: 'input.resolved', stepId: 'q1', outcome: 'answered', by: 'u1', byName: 'Ada', requestId: 'r1' }),
    ev({ type: 'session.status', status: 'running', revision: 0 }),
    ev({ type: 'step.started', step: { ...stepOf('o1', 'q1', 2, 'observation'), tool: 'ask_user', by: 'u1', byName: 'Ada' } }),
    ev({ type: 'step.completed', stepId: 'o1', content: '5', tool: 'ask_user', result: { answer: '5', by: 'u1', byName: 'Ada', choice: 1 } }),
    ev({ type: 'step.started', step: stepOf('k1', 'o1', 3, 'tool_call') }),
    ev({ type: 'step.completed', stepId: 'k1', content: '{"expression":"20*25"}', tool: 'calculator' }),
    ev({ type: 'approval.requested', stepId: 'k1', tool: 'calculator', input: { expression: '20*25' } }),
    ev({ type: 'session.status', status: 'waiting', revision: 0 }),
    ev({ type: 'approval.resolved', stepId: 'k1', decision: 'approved', by: 'u1', byName: 'Ada', remember: 'session' }),
    ev({ type: 'session.status', status: 'running', revision: 0 }),
    ev({ type: 'step.started', step: { ...stepOf('b1', 'k1', 4, 'observation'), tool: 'calculator' } }),
    ev({ type: 'step.completed', stepId: 'b1', content: '500', tool: 'calculator', result: { value: 500 } }),
    ev({ type: 'step.started', step: stepOf('k2', 'b1', 5, 'tool_call') }),
    ev({ type: 'step.completed', stepId: 'k2', content: '{"expression":"500/2"}', tool: 'calculator', approval: { state: 'approved', via: 'remembered', by: 'u1', byName: 'Ada', at: '2025-01-01T00:00:15.000Z', from: 'k1' } }),
    ev({ type: 'breakpoint.hit', stepId: 'k2', breakpoint: { kind: 'tool_call' }, index: 0 }),
    ev({ type: 'session.status', status: 'paused', revision: 0, detail: 'Stopped at a breakpoint: before calculator runs' }),
  ];
  return { asked, answered, ev };
}

describe('the reducer and rules of human in the loop', () => {
  it('keeps a question’s trail and says whether it can be answered now', () => {
    const { asked, answered } = session();
    const state = applyEvents(createSessionState(info), asked);
    expect(state.steps.get('q1')!.question).toEqual({ state: 'pending', requestedAt: '2025-01-01T00:00:06.000Z' });
    expect(isAwaitingInput(state, 'q1')).toBe(true);
    expect(pendingQuestions(state).map((step) => step.stepId)).toEqual(['q1']);
    expect(inputRefusal(state, 't1')).toBe('not_a_question');
    expect(inputRefusal(state, 'nope')).toBe('not_found');
    applyEvents(state, answered.slice(0, 1));
    expect(state.steps.get('q1')!.question).toEqual({ state: 'answered', requestedAt: '2025-01-01T00:00:06.000Z', by: 'u1', byName: 'Ada', at: '2025-01-01T00:00:08.000Z' });
    expect(inputRefusal(state, 'q1')).toBe('already_answered');
    expect(pendingQuestions(state)).toEqual([]);
  });

  it('refuses an answer to a question that left the chain or a session that is not waiting', () => {
    const { asked } = session();
    const state = applyEvents(createSessionState(info), asked.slice(0, 6));
    expect(inputRefusal(state, 'q1')).toBe('session_not_waiting');
    const at = (seq: number) => ({ sessionId: SID, seq, at: `2025-01-01T00:01:${String(seq).padStart(2, '0')}.000Z` });
    applyEvents(state, [
      asked[6]!,
      { type: 'step.corrected', ...at(8), revision: 1, step: { ...stepOf('t2', null, 0, 'thought', 'corrected', 'Replace the 5.'), correctionOf: 't1' } },
      { type: 'steps.invalidated', ...at(9), revision: 1, stepIds: ['t1', 'q1'], byStepId: 't2' },
    ] as SessionEvent[]);
    expect(inputRefusal(state, 'q1')).toBe('invalidated');
  });

  it('remembers an approval given once, copies a standing decision onto its step, and marks the breakpoint', () => {
    const { asked, answered } = session();
    const state = applyEvents(createSessionState(info), [...asked, ...answered]);
    expect([...state.remembered.values()]).toEqual([{ tool: 'calculator', by: 'u1', byName: 'Ada', at: '2025-01-01T00:00:16.000Z', stepId: 'k1' }]);
    expect(state.steps.get('k2')!.approval).toMatchObject({ state: 'approved', via: 'remembered', from: 'k1' });
    expect(state.steps.get('k2')!.breakpoint).toEqual({ at: '2025-01-01T00:00:22.000Z', kind: 'tool_call', index: 0 });
    expect(pausedAtBreakpoint(state)?.stepId).toBe('k2');
    const copy = createSessionState(toSnapshot(state));
    expect([...copy.remembered.keys()]).toEqual(['calculator']);
    expect(pausedAtBreakpoint(copy)?.stepId).toBe('k2');
  });

  it('forgets remembered approvals, and never remembers a rejection', () => {
    const { asked, answered, ev } = session();
    const state = applyEvents(createSessionState(info), [...asked, ...answered]);
    applyEvents(state, [ev({ type: 'approvals.forgotten', tools: ['calculator'], by: 'u1' })]);
    expect(state.remembered.size).toBe(0);
    const other = eventBuilder('s_rej');
    const rejected = applyEvents(createSessionState({ ...info, sessionId: 's_rej' }), [
      other.ev({ type: 'step.started', step: stepOf('k1', null, 0, 'tool_call') }),
      other.ev({ type: 'step.completed', stepId: 'k1', content: '{}', tool: 'shell' }),
      other.ev({ type: 'approval.requested', stepId: 'k1', tool: 'shell', input: {} }),
      other.ev({ type: 'approval.resolved', stepId: 'k1', decision: 'rejected', by: 'u1', remember: 'session' }),
    ]);
    expect(rejected.remembered.size).toBe(0);
  });

  it('is no longer at the breakpoint once it runs on', () => {
    const { asked, answered, ev } = session();
    const state = applyEvents(createSessionState(info), [...asked, ...answered, ev({ type: 'session.status', status: 'running', revision: 0 })]);
    expect(pausedAtBreakpoint(state)).toBeUndefined();
  });
});
