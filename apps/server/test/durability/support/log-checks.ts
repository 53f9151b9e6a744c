import { chainSteps, type SessionEvent } from '@interthought/protocol';
import { expect } from 'vitest';
import { foldEvents } from '../../support/session-stream.js';

/** The seqs of the events, in order. */
export const seqsOf = (events: readonly { seq: number }[]): number[] => events.map((event) => event.seq);

/** from … to. */
export const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/**
 * A session's whole log as PROTOCOL.md §8 "Ordering, delivery and resume" promises it: seq 1 … n without gaps or repeats, folding
 * with the reducer, and every streamed step's content equal to its deltas joined in seq order (both
 * the content `step.completed` announces and the content the fold ends with).
 */
export function expectWholeLog(sessionId: string, events: readonly SessionEvent[]) {
  expect(seqsOf(events)).toEqual(range(1, events.length));
  const state = foldEvents(sessionId, events);
  const joined = new Map<string, string>();
  for (const event of events) {
    // A corrected step is written whole by the user, not streamed.
    if (event.type === 'step.corrected') joined.set(event.step.stepId, event.step.content);
    if (event.type === 'step.delta') joined.set(event.stepId, (joined.get(event.stepId) ?? '') + event.text);
    if (event.type === 'step.completed') expect(event.content, `content of ${event.stepId}`).toBe(joined.get(event.stepId) ?? '');
  }
  for (const step of state.steps.values()) expect(step.content, `content of ${step.stepId}`).toBe(joined.get(step.stepId) ?? '');
  return state;
}

/** The log of a run that finished: it ends `completed` with a final answer on the chain. */
export function expectCompletedLog(sessionId: string, events: readonly SessionEvent[]) {
  const state = expectWholeLog(sessionId, events);
  expect(state.session.status).toBe('completed');
  expect(chainSteps(state).at(-1)?.kind).toBe('final_answer');
  return state;
}
