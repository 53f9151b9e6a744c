import { describe, expect, it } from 'vitest';
import { isWellFormedText, type Step } from '@interthought/protocol';
import { isAskUserCall, questionDetail } from '../../../src/core/commands/questions.js';
import { waitingDetail } from '../../../src/core/commands/pending-wait.js';

function call(content: string, tool = 'ask_user'): Step {
  return { stepId: 's', parentId: null, index: 0, kind: 'tool_call', status: 'completed', content, revision: 0, tool };
}

describe('which calls ask (PROTOCOL.md §25.1)', () => {
  it('is an ask_user call with valid input only', () => {
    expect(isAskUserCall(call('{"question":"Which?"}'))).toBe(true);
    expect(isAskUserCall(call('{"question":"Which?","choices":["a","b"]}'))).toBe(true);
    expect(isAskUserCall(call('{"question":""}'))).toBe(false);
    expect(isAskUserCall(call('not json'))).toBe(false);
    expect(isAskUserCall(call('{"question":"Which?"}', 'calculator'))).toBe(false);
    expect(isAskUserCall({ ...call('{"question":"Which?"}'), kind: 'thought' })).toBe(false);
  });
});

describe('the detail of a session waiting for an answer', () => {
  it('names the question, cut at 200 characters', () => {
    expect(questionDetail(call('{"question":"Which number?"}'))).toBe('Waiting for your answer: Which number?');
    const long = 'q'.repeat(250);
    expect(questionDetail(call(JSON.stringify({ question: long })))).toBe(`Waiting for your answer: ${'q'.repeat(200)}`);
  });

  it('never cuts between the halves of a surrogate pair', () => {
    const question = `${'q'.repeat(199)}😀 and more`;
    const detail = questionDetail(call(JSON.stringify({ question })));
    expect(detail).toBe(`Waiting for your answer: ${'q'.repeat(199)}`);
    expect(isWellFormedText(detail)).toBe(true);
  });

  it('names the tool when the wait is an approval', () => {
    expect(waitingDetail(call('{"expression":"1"}', 'calculator'))).toBe('Waiting for approval: calculator');
    expect(waitingDetail(call('{"question":"Which?"}'))).toBe('Waiting for your answer: Which?');
  });
});
