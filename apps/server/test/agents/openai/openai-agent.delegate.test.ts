import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DELEGATE_TOOL, DelegateInputSchema } from '@interthought/protocol';
import type { ToolCallContext } from '@interthought/agent';
import { openAIAgent } from '../../../src/agents/openai/index.js';
import { ToolError } from '../../../src/tools/tool.js';
import { FakeOpenAIServer } from './support/fake-openai-server.js';
import { testRun } from './support/run-context.js';
import { createTestTools } from './support/test-tools.js';
import { answerTurn, content, toolCall, toolTurn } from './support/wire.js';

/*
 * An `openai` agent with sub-agents (PROTOCOL.md §24.8): it is offered `delegate` with `agent` one
 * of their names, and the parallel delegate calls of one model response are one batch, run at the
 * same time, their observations written in call order once all are done. The `delegate` tool here
 * stands in for the server's (which runs each sub-agent in the call's scope): it records what it
 * was called with and answers only once both calls of the batch are running.
 */

let fake: FakeOpenAIServer;
beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
});
afterEach(async () => {
  await fake.close();
});

function agentWithSubagents() {
  return openAIAgent({
    name: 'planner',
    config: {
      baseURL: fake.baseURL,
      apiKey: undefined,
      model: 'test-model',
      maxIterations: 5,
      timeoutMs: 5_000,
      retry: { attempts: 1, baseDelayMs: 5, maxDelayMs: 5 },
      thoughtReplay: 'reasoning-content',
    },
    subagents: ['math', 'percent'],
  });
}

/** A `delegate` that resolves each call only once `batch` calls are running at the same time. */
function barrierDelegate(batch: number, answer: (task: string) => string | Error) {
  const calls: Array<{ input: unknown; call: ToolCallContext | undefined }> = [];
  let release!: () => void;
  const together = new Promise<void>((resolve) => (release = resolve));
  return {
    calls,
    tool: {
      name: DELEGATE_TOOL,
      description: 'Hand a part of the task to a sub-agent.',
      effect: 'read' as const,
      inputSchema: DelegateInputSchema,
      async execute(input: { task: string }, _signal: AbortSignal, call?: ToolCallContext) {
        calls.push({ input, call });
        if (calls.length === batch) release();
        await together;
        const outcome = answer(input.task);
        if (outcome instanceof Error) throw new ToolError(outcome.message);
        return { output: { subagent: call?.stepId, status: 'completed', answer: outcome }, text: outcome };
      },
    },
  };
}

describe('openai agent: delegate', () => {
  it('offers delegate with the sub-agents as its agent enum, runs two parallel calls as one batch, and gives the model the answers', async () => {
    fake.reply(
      toolTurn(
        ...toolCall(0, 'call_a', 'delegate', '{"task":"What is 17 * 23 + 4?",', '"agent":"math","name":"part 1"}'),
        ...toolCall(1, 'call_b', 'delegate', '{"task":"What is 15% of 240?","agent":"percent"}'),
      ),
      answerTurn(...content('395, and 36.')),
    );
    const delegate = barrierDelegate(2, (task) => (task.includes('17') ? '395' : '36'));
    const tools = createTestTools().tools.register(delegate.tool);
    const { context, sink } = testRun({ task: 'What is 17 * 23 + 4? Also, what is 15% of 240?', tools });

    await agentWithSubagents().run(context);

    expect(sink.summary()).toEqual([
      { kind: 'tool_call', tool: 'delegate', content: '{"task":"What is 17 * 23 + 4?","agent":"math","name":"part 1"}' },
      { kind: 'tool_call', tool: 'delegate', content: '{"task":"What is 15% of 240?","agent":"percent"}' },
      { kind: 'observation', tool: 'delegate', content: '395' },
      { kind: 'observation', tool: 'delegate', content: '36' },
      { kind: 'final_answer', content: '395, and 36.' },
    ]);
    // Each call ran in the scope of its own step (the barrier proves they ran at the same time).
    expect(delegate.calls.map(({ call }) => call?.stepId)).toEqual([sink.steps[0]!.stepId, sink.steps[1]!.stepId]);
    expect(sink.steps[2]!.result).toEqual({ subagent: sink.steps[0]!.stepId, status: 'completed', answer: '395' });

    const offered = fake.requests[0]!.body.tools.find((tool: { function: { name: string } }) => tool.function.name === 'delegate');
    expect(offered.function.parameters.properties.agent.enum).toEqual(['math', 'percent']);
    expect(offered.function.parameters.required).toEqual(['task']);
    // The second turn has both calls in one assistant message and the answers as their tool messages.
    const history = fake.requests[1]!.body.messages;
    expect(history.filter((message: { role: string }) => message.role === 'assistant').at(-1).tool_calls).toHaveLength(2);
    expect(history.filter((message: { role: string }) => message.role === 'tool').map((message: { content: string }) => message.content)).toEqual(['395', '36']);
  });

  it('a refused or malformed delegate call is its observation’s error, and the batch still answers in order', async () => {
    fake.reply(
      toolTurn(...toolCall(0, 'call_a', 'delegate', '{"task":"part one"}'), ...toolCall(1, 'call_b', 'delegate', '{"job":"no task"}'), ...toolCall(2, 'call_c', 'delegate', '{"task":"part three"}')),
      answerTurn(...content('Done.')),
    );
    const delegate = barrierDelegate(2, (task) => (task === 'part three' ? new Error('Sub-agents nest at most 3 deep') : 'one'));
    const tools = createTestTools().tools.register(delegate.tool);
    const { context, sink } = testRun({ tools });

    await agentWithSubagents().run(context);

    expect(sink.summary().slice(3, 6)).toEqual([
      { kind: 'observation', tool: 'delegate', content: 'one' },
      { kind: 'observation', tool: 'delegate', content: expect.stringMatching(/^Error: .*task/) },
      { kind: 'observation', tool: 'delegate', content: 'Error: Sub-agents nest at most 3 deep' },
    ]);
    expect(delegate.calls).toHaveLength(2);
  });
});
