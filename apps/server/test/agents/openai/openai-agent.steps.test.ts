import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIAgent } from '../../../src/agents/openai/index.js';
import { FakeOpenAIServer } from './support/fake-openai-server.js';
import { testEnv, testRun } from './support/run-context.js';
import { answerTurn, content, reasoning, toolCall, toolTurn } from './support/wire.js';

let fake: FakeOpenAIServer;
beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
});
afterEach(async () => {
  await fake.close();
});

describe('openai agent: mapping a streamed turn onto steps', () => {
  it('streams reasoning_content as a thought and the text of a turn without tool calls as the final answer', async () => {
    fake.reply(answerTurn(...reasoning('Two ', 'plus three ', 'is five.'), ...content('The answer ', 'is 5.')));
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.summary()).toEqual([
      { kind: 'thought', content: 'Two plus three is five.' },
      { kind: 'final_answer', content: 'The answer is 5.' },
    ]);
    expect(sink.steps[0]?.writes).toEqual(['Two ', 'plus three ', 'is five.']);
    expect(sink.steps[1]?.writes).toEqual(['The answer ', 'is 5.']);
    expect(sink.steps.every((step) => step.ended)).toBe(true);
  });

  it('keeps one thought when blank content arrives between reasoning chunks', async () => {
    fake.reply(answerTurn(...reasoning('Step one. '), ...content('\n'), ...reasoning('Step two.'), ...content('\n\nDone.')));
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.summary()).toEqual([
      { kind: 'thought', content: 'Step one. Step two.' },
      { kind: 'final_answer', content: 'Done.' },
    ]);
  });

  it('splits <think> reasoning out of the content even when the tags are cut across chunks', async () => {
    fake.reply(answerTurn(...content('<th', 'ink>\nLet me ', 'add <b>2</b> and 3.</th', 'ink>', '\n\nIt is ', '5.')));
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.summary()).toEqual([
      { kind: 'thought', content: 'Let me add <b>2</b> and 3.' },
      { kind: 'final_answer', content: 'It is 5.' },
    ]);
  });

  it('makes text before tool calls an action and streams the call arguments fragment by fragment, then observes the tool', async () => {
    fake.reply(
      toolTurn(...content('I will ', 'add them.'), ...toolCall(0, 'call_model_1', 'add', '{"a":', ' 2, "b"', ': 3}')),
      answerTurn(...content('It is 5.')),
    );
    const { context, sink, invocations } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.summary()).toEqual([
      { kind: 'action', content: 'I will add them.' },
      { kind: 'tool_call', tool: 'add', content: '{"a": 2, "b": 3}' },
      { kind: 'observation', tool: 'add', content: '2 + 3 = 5' },
      { kind: 'final_answer', content: 'It is 5.' },
    ]);
    expect(sink.steps[1]?.writes).toEqual(['{"a":', ' 2, "b"', ': 3}']);
    expect(sink.steps[2]?.result).toEqual({ sum: 5 });
    expect(invocations).toEqual([{ tool: 'add', input: { a: 2, b: 3 } }]);
  });

  it('sends the observation back as a tool message paired with the call', async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_model_1', 'add', '{"a":2,"b":3}')), answerTurn(...content('5')));
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    const callStepId = sink.steps[0]?.stepId;
    expect(fake.requests[1]?.body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${callStepId}`, type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } }],
      },
      { role: 'tool', tool_call_id: `call_${callStepId}`, content: '2 + 3 = 5' },
    ]);
  });

  it('gives parallel tool calls their own steps in index order, even when their fragments interleave', async () => {
    fake.reply(
      toolTurn(
        { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'add', arguments: '' } }] },
        { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'capital', arguments: '' } }] },
        { tool_calls: [{ index: 1, function: { arguments: '{"country":' } }] },
        { tool_calls: [{ index: 0, function: { arguments: '{"a":1,' } }] },
        { tool_calls: [{ index: 1, function: { arguments: '"Japan"}' } }] },
        { tool_calls: [{ index: 0, function: { arguments: '"b":2}' } }] },
      ),
      answerTurn(...content('3 and Tokyo.')),
    );
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.summary()).toEqual([
      { kind: 'tool_call', tool: 'add', content: '{"a":1,"b":2}' },
      { kind: 'tool_call', tool: 'capital', content: '{"country":"Japan"}' },
      { kind: 'observation', tool: 'add', content: '1 + 2 = 3' },
      { kind: 'observation', tool: 'capital', content: 'Tokyo' },
      { kind: 'final_answer', content: '3 and Tokyo.' },
    ]);
    expect(sink.steps[0]?.writes).toEqual(['{"a":1,', '"b":2}']);
    expect(sink.steps[1]?.writes).toEqual(['{"country":', '"Japan"}']);
    const [first, second] = sink.steps;
    const followUp = fake.requests[1]?.body.messages.slice(2);
    expect(followUp[0].tool_calls.map((call: { id: string }) => call.id)).toEqual([`call_${first?.stepId}`, `call_${second?.stepId}`]);
    expect(followUp.slice(1)).toEqual([
      { role: 'tool', tool_call_id: `call_${first?.stepId}`, content: '1 + 2 = 3' },
      { role: 'tool', tool_call_id: `call_${second?.stepId}`, content: 'Tokyo' },
    ]);
  });

  it('turns arguments that fail the tool schema into an error observation the model can act on', async () => {
    fake.reply(
      toolTurn(...toolCall(0, 'call_1', 'add', '{"a":"two","b":3}')),
      toolTurn(...toolCall(0, 'call_2', 'add', '{"a":2,"b":3}')),
      answerTurn(...content('5')),
    );
    const { context, sink, invocations } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    const observations = sink.steps.filter((step) => step.kind === 'observation');
    expect(observations[0]?.content).toMatch(/^Error: Invalid input for add: a: /);
    expect(observations[0]?.result).toMatchObject({ error: expect.stringContaining('Invalid input for add') });
    expect(observations[1]?.content).toBe('2 + 3 = 5');
    expect(invocations).toEqual([{ tool: 'add', input: { a: 2, b: 3 } }]);
    const toolMessage = fake.requests[1]?.body.messages.at(-1);
    expect(toolMessage).toMatchObject({ role: 'tool', content: expect.stringMatching(/^Error: Invalid input for add/) });
  });

  it('reports a tool that the model made up as an error observation', async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_1', 'weather', '{"city":"Paris"}')), answerTurn(...content('Unknown.')));
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.summary()[1]).toEqual({ kind: 'observation', tool: 'weather', content: 'Error: Unknown tool "weather".' });
  });

  it("shows a tool's own error as the observation", async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_1', 'capital', '{"country":"Atlantis"}')), answerTurn(...content('Nobody knows.')));
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.summary()[1]).toEqual({ kind: 'observation', tool: 'capital', content: 'Error: No capital known for Atlantis.' });
  });

  it('shows reasoning and text that arrive after the tool calls began after the call steps, and ignores blank text', async () => {
    fake.reply(
      toolTurn(...toolCall(0, 'call_1', 'add', '{"a":1,"b":1}'), ...reasoning('Also worth noting.'), ...content('\n\n')),
      answerTurn(...content('2')),
    );
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.summary()).toEqual([
      { kind: 'tool_call', tool: 'add', content: '{"a":1,"b":1}' },
      { kind: 'thought', content: 'Also worth noting.' },
      { kind: 'observation', tool: 'add', content: '1 + 1 = 2' },
      { kind: 'final_answer', content: '2' },
    ]);
    const callStepId = sink.steps[0]?.stepId;
    expect(fake.requests[1]?.body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: '<think>\nAlso worth noting.\n</think>',
        tool_calls: [{ id: `call_${callStepId}`, type: 'function', function: { name: 'add', arguments: '{"a":1,"b":1}' } }],
      },
      { role: 'tool', tool_call_id: `call_${callStepId}`, content: '1 + 1 = 2' },
    ]);
  });

  it('warns that an answer cut at the output limit may be incomplete', async () => {
    fake.reply({ type: 'stream', deltas: content('The answer is'), finishReason: 'length' });
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.summary()).toEqual([{ kind: 'final_answer', content: 'The answer is' }]);
    expect(sink.notices()).toEqual(['the model reached its output limit; the answer may be cut short']);
  });

  it('treats text followed by more reasoning as an action, not as the answer', async () => {
    fake.reply(answerTurn(...content('<think>First idea.</think>', 'Let me check.', '<think>Checked.</think>', 'Final: 5')));
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.summary()).toEqual([
      { kind: 'thought', content: 'First idea.' },
      { kind: 'action', content: 'Let me check.' },
      { kind: 'thought', content: 'Checked.' },
      { kind: 'final_answer', content: 'Final: 5' },
    ]);
  });
});

describe('openai agent: the request it sends', () => {
  it('sends the registry tools as JSON Schema functions, and ask_user, with the session model and temperature, streaming', async () => {
    fake.reply(answerTurn(...content('5')));
    const { context } = testRun({ task: 'Add 2 and 3.', options: { model: 'session-model', temperature: 0.2 } });

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    const request = fake.requests[0];
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.body).toMatchObject({ model: 'session-model', temperature: 0.2, stream: true });
    expect(request?.body.messages).toEqual([
      { role: 'system', content: expect.stringContaining('tools') },
      { role: 'user', content: 'Add 2 and 3.' },
    ]);
    expect(request?.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'add',
          description: 'Add two numbers.',
          parameters: {
            type: 'object',
            properties: { a: { type: 'number', description: 'The first addend' }, b: { type: 'number' } },
            required: ['a', 'b'],
          },
        },
      },
      {
        type: 'function',
        function: {
          name: 'capital',
          description: 'The capital city of a country.',
          parameters: { type: 'object', properties: { country: { type: 'string', minLength: 1 } }, required: ['country'] },
        },
      },
      // Every agent is offered ask_user (PROTOCOL.md §25.1), even with a registry that does not hold it.
      { type: 'function', function: { name: 'ask_user', description: expect.stringContaining('Ask the user a question'), parameters: expect.objectContaining({ required: ['question'] }) } },
    ]);
  });

  it('uses the configured model when the session names none, and omits the temperature', async () => {
    fake.reply(answerTurn(...content('5')));
    const { context } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL, { INTERTHOUGHT_MODEL: 'qwen3:8b' })).run(context);

    expect(fake.requests[0]?.body.model).toBe('qwen3:8b');
    expect(fake.requests[0]?.body).not.toHaveProperty('temperature');
  });

  it('sends the API key as a bearer token, and a placeholder key to an endpoint that needs none', async () => {
    fake.reply(answerTurn(...content('5')), answerTurn(...content('5')));

    await createOpenAIAgent(testEnv(fake.baseURL, { OPENAI_API_KEY: 'sk-test-123' })).run(testRun().context);
    await createOpenAIAgent(testEnv(fake.baseURL)).run(testRun().context);

    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-test-123');
    expect(fake.requests[1]?.headers.authorization).toMatch(/^Bearer \S+$/);
  });
});
