import { describe, expect, it } from 'vitest';
import type { Step } from '@interthought/protocol';
import { answerAtHead } from '../src/worker/ask-user.js';

const QUESTION = { question: 'Which city?', choices: ['Paris', 'Lyon'] };

function step(stepId: string, kind: Step['kind'], content: string, extra: Partial<Step> = {}): Step {
  return { stepId, parentId: null, index: 0, kind, status: 'completed', content, revision: 0, ...extra } as Step;
}

const call = step('C', 'tool_call', JSON.stringify(QUESTION), { tool: 'ask_user' });

describe('answerAtHead', () => {
  it('reads the answer, the choice it equals and who gave it from the observation after the question', () => {
    const chain = [step('T', 'thought', 'I need the city.'), call, step('O', 'observation', 'Lyon', { tool: 'ask_user', by: 'u1', result: { answer: 'Lyon', by: 'u1', byName: 'Ada', choice: 1 } })];
    expect(answerAtHead(chain)).toEqual({ ...QUESTION, answered: true, answer: 'Lyon', choice: 1, by: 'u1', byName: 'Ada' });
  });

  it('says a question that timed out was not answered', () => {
    const chain = [call, step('O', 'observation', 'The user did not answer in time.', { tool: 'ask_user', result: { unanswered: true, reason: 'timed out' } })];
    expect(answerAtHead(chain)).toEqual({ ...QUESTION, answered: false, reason: 'timed out' });
  });

  it('is undefined when the chain ends otherwise: no observation yet, another tool, or a call that was no question', () => {
    expect(answerAtHead([])).toBeUndefined();
    expect(answerAtHead([call])).toBeUndefined();
    expect(answerAtHead([step('C', 'tool_call', '{}', { tool: 'calculator' }), step('O', 'observation', '42', { tool: 'calculator' })])).toBeUndefined();
    const bad = step('C', 'tool_call', '{"question":""}', { tool: 'ask_user' });
    expect(answerAtHead([bad, step('O', 'observation', 'Error: Invalid input', { tool: 'ask_user', result: { error: 'Invalid input' } })])).toBeUndefined();
  });
});
