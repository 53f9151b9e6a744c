import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIAgent } from '../../../src/agents/openai/index.js';
import { FakeOpenAIServer } from './support/fake-openai-server.js';
import { ChainBuilder, testEnv, testRun } from './support/run-context.js';
import { answerTurn, content, toolCall, toolTurn } from './support/wire.js';

let fake: FakeOpenAIServer;
beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
});
afterEach(async () => {
  await fake.close();
});

/** The messages of request `n` after the system prompt and the task. */
function historyOf(n: number): unknown[] {
  return fake.requests[n]?.body.messages.slice(2);
}

describe('openai agent: regenerating after a correction', () => {
  it('puts a corrected thought in place and tells the model about the correction and its note', async () => {
    fake.reply(answerTurn(...content('6')));
    const chain = new ChainBuilder().corrected('thought', 'I should multiply 2 by 3.', 'I should add 2 and 3.', 'the task says times').steps;
    const { context, sink } = testRun({ task: 'What is 2 times 3?', chain });

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(fake.requests[0]?.body.messages[1]).toEqual({ role: 'user', content: 'What is 2 times 3?' });
    expect(historyOf(0)).toEqual([
      { role: 'assistant', content: '<think>\nI should multiply 2 by 3.\n</think>' },
      { role: 'user', content: expect.stringContaining('"I should multiply 2 by 3."') },
    ]);
    const note = (historyOf(0)[1] as { content: string }).content;
    expect(note).toContain('The user corrected your reasoning');
    expect(note).toContain('Their note: the task says times');
    expect(note).not.toContain('I should add 2 and 3.');
    expect(sink.summary()).toEqual([{ kind: 'final_answer', content: '6' }]);
  });

  it('replays thoughts as reasoning_content when configured to, on every assistant message', async () => {
    fake.reply(answerTurn(...content('5')));
    const chain = new ChainBuilder()
      .add('thought', 'Add them.')
      .add('action', 'Adding now.')
      .add('tool_call', '{"a":2,"b":3}', { tool: 'add' })
      .add('observation', '2 + 3 = 5', { tool: 'add' })
      .add('tool_call', '{"a":5,"b":0}', { tool: 'add' })
      .add('observation', '5 + 0 = 5', { tool: 'add' }).steps;

    await createOpenAIAgent(testEnv(fake.baseURL, { INTERTHOUGHT_OPENAI_THOUGHTS: 'reasoning-content' })).run(testRun({ chain }).context);

    const assistants = (historyOf(0) as Array<{ role: string }>).filter((message) => message.role === 'assistant');
    expect(assistants).toEqual([
      { role: 'assistant', content: 'Adding now.', reasoning_content: 'Add them.', tool_calls: [expect.objectContaining({ id: 'call_c3' })] },
      { role: 'assistant', content: null, reasoning_content: '', tool_calls: [expect.objectContaining({ id: 'call_c5' })] },
    ]);
  });

  it('keeps tool calls and results paired by ids derived from the step ids, with a corrected result in place', async () => {
    fake.reply(answerTurn(...content('It is 6.')));
    const chain = new ChainBuilder()
      .add('thought', 'Use the adder.')
      .add('action', 'Calling add.')
      .add('tool_call', '{"a":2,"b":3}', { tool: 'add' })
      .corrected('observation', '2 + 3 = 6', '2 + 3 = 5', 'pretend the adder is off by one', { tool: 'add' }).steps;
    const { context, sink, invocations } = testRun({ chain });

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(historyOf(0)).toEqual([
      {
        role: 'assistant',
        content: '<think>\nUse the adder.\n</think>\n\nCalling add.',
        tool_calls: [{ id: 'call_c3', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } }],
      },
      { role: 'tool', tool_call_id: 'call_c3', content: '2 + 3 = 6' },
      { role: 'user', content: expect.stringContaining('Their note: pretend the adder is off by one') },
    ]);
    expect(invocations).toEqual([]);
    expect(sink.summary()).toEqual([{ kind: 'final_answer', content: 'It is 6.' }]);
  });

  it('re-runs a corrected tool call with the new input before asking the model again', async () => {
    fake.reply(answerTurn(...content('15')));
    const chain = new ChainBuilder()
      .add('action', 'Adding.')
      .corrected('tool_call', '{"a":10,"b":5}', '{"a":2,"b":3}', undefined, { tool: 'add' }).steps;
    const { context, sink, invocations } = testRun({ chain });

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(invocations).toEqual([{ tool: 'add', input: { a: 10, b: 5 } }]);
    expect(sink.summary()).toEqual([
      { kind: 'observation', tool: 'add', content: '10 + 5 = 15' },
      { kind: 'final_answer', content: '15' },
    ]);
    expect(historyOf(0)).toEqual([
      {
        role: 'assistant',
        content: 'Adding.',
        tool_calls: [{ id: 'call_c2', type: 'function', function: { name: 'add', arguments: '{"a":10,"b":5}' } }],
      },
      { role: 'tool', tool_call_id: 'call_c2', content: '10 + 5 = 15' },
      { role: 'user', content: expect.stringContaining('corrected the input of your add call to {"a":10,"b":5}') },
    ]);
  });

  it('answers a corrected tool call with input the tool refuses by an error observation', async () => {
    fake.reply(answerTurn(...content('I cannot add that.')));
    const chain = new ChainBuilder().corrected('tool_call', '{"a":"ten"}', '{"a":2,"b":3}', undefined, { tool: 'add' }).steps;
    const { context, sink, invocations } = testRun({ chain });

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(invocations).toEqual([]);
    expect(sink.steps[0]).toMatchObject({ kind: 'observation', tool: 'add', content: expect.stringMatching(/^Error: Invalid input for add/) });
  });

  it('runs the call a correction left unanswered in a parallel turn, and notes the correction after every result', async () => {
    fake.reply(answerTurn(...content('4 and Paris.')));
    const chain = new ChainBuilder()
      .add('tool_call', '{"a":1,"b":2}', { tool: 'add' })
      .add('tool_call', '{"country":"France"}', { tool: 'capital' })
      .corrected('observation', '1 + 2 = 4', '1 + 2 = 3', 'use the broken adder', { tool: 'add' }).steps;
    const { context, sink, invocations } = testRun({ chain });

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(invocations).toEqual([{ tool: 'capital', input: { country: 'France' } }]);
    expect(sink.summary()[0]).toEqual({ kind: 'observation', tool: 'capital', content: 'Paris' });
    const history = historyOf(0) as Array<{ role: string; tool_call_id?: string; content: string; tool_calls?: Array<{ id: string }> }>;
    expect(history.map((message) => message.role)).toEqual(['assistant', 'tool', 'tool', 'user']);
    expect(history[0]?.tool_calls?.map((call) => call.id)).toEqual(['call_c1', 'call_c2']);
    expect(history.slice(1, 3).map((message) => [message.tool_call_id, message.content])).toEqual([
      ['call_c1', '1 + 2 = 4'],
      ['call_c2', 'Paris'],
    ]);
    expect(history[3]?.content).toContain('Their note: use the broken adder');
  });

  it('continues a run after the correction with the steps it streams in the same history', async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_x', 'add', '{"a":2,"b":4}')), answerTurn(...content('6')));
    const chain = new ChainBuilder().corrected('action', 'Add 2 and 4 instead.', 'Add 2 and 3.').steps;
    const { context, sink } = testRun({ chain });

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    const callStepId = sink.steps[0]?.stepId;
    expect(historyOf(1)).toEqual([
      { role: 'assistant', content: 'Add 2 and 4 instead.' },
      { role: 'user', content: expect.stringContaining('The user corrected your plan') },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${callStepId}`, type: 'function', function: { name: 'add', arguments: '{"a":2,"b":4}' } }],
      },
      { role: 'tool', tool_call_id: `call_${callStepId}`, content: '2 + 4 = 6' },
    ]);
  });

  it('lets a corrected final answer stand without calling the model', async () => {
    const chain = new ChainBuilder().add('thought', 'Easy.').corrected('final_answer', 'Five.', '5').steps;
    const { context, sink } = testRun({ chain });

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(fake.requests).toEqual([]);
    expect(sink.events).toEqual([]);
  });
});
