import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIAgent } from '../../../src/agents/openai/index.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import { FakeOpenAIServer } from './support/fake-openai-server.js';
import { testEnv, testRun } from './support/run-context.js';
import { answerTurn, content, toolCall, toolTurn } from './support/wire.js';

let fake: FakeOpenAIServer;
beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
});
afterEach(async () => {
  await fake.close();
});

describe('openai agent with the built-in tools', () => {
  it('offers every built-in tool to the model as a function with an object schema', async () => {
    fake.reply(answerTurn(...content('Done.')));
    const tools = createDefaultTools();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(testRun({ tools }).context);

    const offered = fake.requests[0]?.body.tools as Array<{ type: string; function: { name: string; parameters: { type: string; properties: object } } }>;
    expect(offered.map((tool) => tool.function.name)).toEqual(tools.list().map((tool) => tool.name));
    for (const tool of offered) {
      expect(tool.type).toBe('function');
      expect(tool.function.parameters.type).toBe('object');
      expect(Object.keys(tool.function.parameters.properties).length).toBeGreaterThan(0);
      expect(tool.function.parameters).not.toHaveProperty('$schema');
    }
  });

  it('runs the calculator the model calls and observes its result', async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_1', 'calculator', '{"expression":', '"12 * (3 + 4)"}')), answerTurn(...content('84')));
    const { context, sink } = testRun({ tools: createDefaultTools() });

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    const observation = sink.steps.find((step) => step.kind === 'observation');
    expect(observation?.tool).toBe('calculator');
    expect(observation?.content).toContain('84');
    expect(observation?.result).toMatchObject({ value: 84 });
  });
});
