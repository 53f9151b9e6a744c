import { describe, expect, it } from 'vitest';
import { buildMessages, SYSTEM_PROMPT, unansweredToolCalls } from '../../../src/agents/openai/history.js';
import { ChainBuilder } from './support/run-context.js';

describe('buildMessages', () => {
  it('starts with the system prompt and the task', () => {
    expect(buildMessages('Find x.', [], 'think-tags')).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'Find x.' },
    ]);
  });

  it('gives each model turn its own assistant message', () => {
    const chain = new ChainBuilder()
      .add('thought', 'Look it up.')
      .add('tool_call', '{"country":"Japan"}', { tool: 'capital' })
      .add('observation', 'Tokyo', { tool: 'capital' })
      .add('thought', 'Got it.')
      .add('final_answer', 'Tokyo.').steps;

    expect(buildMessages('Capital of Japan?', chain, 'think-tags').slice(2)).toEqual([
      {
        role: 'assistant',
        content: '<think>\nLook it up.\n</think>',
        tool_calls: [{ id: 'call_c2', type: 'function', function: { name: 'capital', arguments: '{"country":"Japan"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_c2', content: 'Tokyo' },
      { role: 'assistant', content: '<think>\nGot it.\n</think>\n\nTokyo.' },
    ]);
  });

  it("sends the user's messages as user turns, after the model turn before them is closed and answered; an edited message reads as the user's text, without a note", () => {
    const chain = new ChainBuilder()
      .add('thought', 'Look it up.')
      .add('final_answer', 'Tokyo.')
      .add('user_message', 'And of France?')
      .add('tool_call', '{"country":"France"}', { tool: 'capital' })
      .corrected('user_message', 'Actually, of Italy?', 'Hmm', 'typo').steps;

    expect(buildMessages('Capital of Japan?', chain, 'think-tags').slice(2)).toEqual([
      { role: 'assistant', content: '<think>\nLook it up.\n</think>\n\nTokyo.' },
      { role: 'user', content: 'And of France?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_c4', type: 'function', function: { name: 'capital', arguments: '{"country":"France"}' } }] },
      { role: 'tool', tool_call_id: 'call_c4', content: 'The tool was not run.' },
      { role: 'user', content: 'Actually, of Italy?' },
    ]);
  });

  it('keeps reasoning and text of one turn in one message, in the order the model produced them', () => {
    const chain = new ChainBuilder()
      .add('thought', 'First idea.')
      .add('action', 'Let me check.')
      .add('thought', 'Checked.')
      .add('final_answer', 'Final: 5').steps;

    expect(buildMessages('t', chain, 'think-tags').slice(2)).toEqual([
      { role: 'assistant', content: '<think>\nFirst idea.\n</think>\n\nLet me check.\n\n<think>\nChecked.\n</think>\n\nFinal: 5' },
    ]);
    expect(buildMessages('t', chain, 'reasoning-content').slice(2)).toEqual([
      { role: 'assistant', content: 'Let me check.\n\nFinal: 5', reasoning_content: 'First idea.\n\nChecked.' },
    ]);
  });

  it('gives a call the chain left without a result a placeholder result, so the history stays valid', () => {
    const chain = new ChainBuilder()
      .add('tool_call', '{"a":1,"b":1}', { tool: 'add' })
      .add('thought', 'Moving on.').steps;

    expect(buildMessages('t', chain, 'think-tags').slice(2)).toEqual([
      { role: 'assistant', content: '<think>\nMoving on.\n</think>', tool_calls: [expect.objectContaining({ id: 'call_c1' })] },
      { role: 'tool', tool_call_id: 'call_c1', content: 'The tool was not run.' },
    ]);
  });

  it('pairs each result with the earliest waiting call of its tool', () => {
    const chain = new ChainBuilder()
      .add('tool_call', '{"a":1,"b":1}', { tool: 'add' })
      .add('tool_call', '{"country":"France"}', { tool: 'capital' })
      .add('observation', 'Paris', { tool: 'capital' })
      .add('observation', '1 + 1 = 2', { tool: 'add' }).steps;

    expect(buildMessages('t', chain, 'think-tags').slice(3)).toEqual([
      { role: 'tool', tool_call_id: 'call_c2', content: 'Paris' },
      { role: 'tool', tool_call_id: 'call_c1', content: '1 + 1 = 2' },
    ]);
  });
});

describe('unansweredToolCalls', () => {
  it('lists the calls no observation answers, in chain order', () => {
    const chain = new ChainBuilder()
      .add('tool_call', '{"a":1,"b":1}', { tool: 'add' })
      .add('observation', '1 + 1 = 2', { tool: 'add' })
      .add('tool_call', '{"a":2,"b":2}', { tool: 'add' })
      .add('tool_call', '{"country":"Japan"}', { tool: 'capital' }).steps;

    expect(unansweredToolCalls(chain).map((step) => step.stepId)).toEqual(['c3', 'c4']);
  });
});
