import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SessionEvent, Step } from '@interthought/protocol';
import { AgentRegistry } from '@interthought/agent';
import { createOpenAIAgent } from '../../../src/agents/openai/index.js';
import { SessionManager } from '../../../src/core/session-manager.js';
import { MemoryEventStore } from '../../../src/store/memory-event-store.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import { addMcpTools, type McpTools } from '../../../src/tools/mcp/index.js';
import type { ToolRegistry } from '../../../src/tools/tool-registry.js';
import { FakeOpenAIServer } from '../../agents/openai/support/fake-openai-server.js';
import { testEnv } from '../../agents/openai/support/run-context.js';
import { answerTurn, content, toolCall, toolTurn } from '../../agents/openai/support/wire.js';
import { HTTP_TOOLS, HttpMcpTestServer } from './support/http-test-server.js';
import { RecordingLog, eventually, httpServer, mcpConfig, stdioServer } from './support/mcp-test-config.js';

// The `openai` agent in the real session core, against the fake chat-completions endpoint, with
// the built-in tools and those of a stdio and an HTTP MCP server.
const TIMEOUT_MS = 1_500;
let http: HttpMcpTestServer;
let mcp: McpTools;
let tools: ToolRegistry;
let fake: FakeOpenAIServer;
let store: MemoryEventStore;
let manager: SessionManager;

beforeAll(async () => {
  http = await HttpMcpTestServer.start();
  tools = createDefaultTools();
  mcp = await addMcpTools(tools, mcpConfig([stdioServer('notes'), httpServer(http.url, 'weather')], TIMEOUT_MS), new RecordingLog());
});
afterAll(async () => {
  await mcp?.close();
  await http?.stop();
});
beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
  store = new MemoryEventStore();
  manager = new SessionManager({ store, agents: new AgentRegistry('openai').register(createOpenAIAgent(testEnv(fake.baseURL))), tools });
});
afterEach(async () => {
  await manager.shutdown();
  await fake.close();
});

async function chainOf(sessionId: string): Promise<Step[]> {
  const snapshot = (await manager.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

async function untilStatus(sessionId: string, status: string): Promise<Step[]> {
  await eventually(async () => (await manager.snapshot(sessionId))?.session.status === status, `session ${sessionId} to be ${status}`);
  return chainOf(sessionId);
}

async function eventsOf(sessionId: string): Promise<SessionEvent[]> {
  await manager.flushed();
  return store.readEvents(sessionId, 0);
}

/** The `tool` messages of the model request `n`. */
function toolMessagesOf(n: number): Array<{ content: string }> {
  return fake.requests[n]!.body.messages.filter((message: { role: string }) => message.role === 'tool');
}

/** A session whose model proposes `write_note` (not read-only), waiting for approval. */
async function proposedNote(): Promise<{ sessionId: string; call: Step }> {
  fake.reply(toolTurn(...toolCall(0, 'call_note', 'mcp__notes__write_note', '{"title":', '"Groceries"}')));
  const { sessionId } = await manager.create({ task: 'Save a note called Groceries.' });
  const chain = await untilStatus(sessionId, 'waiting');
  const call = chain.at(-1)!;
  expect(call).toMatchObject({ kind: 'tool_call', tool: 'mcp__notes__write_note', approval: { state: 'pending' } });
  return { sessionId, call };
}

describe('openai agent with MCP tools', () => {
  it("offers them with the server's own JSON Schema, beside the built-in tools", async () => {
    fake.reply(answerTurn(...content('Nothing to do.')));
    const { sessionId } = await manager.create({ task: 'Hello' });
    await untilStatus(sessionId, 'completed');
    const offered = fake.requests[0]!.body.tools as Array<{ function: { name: string; parameters: unknown } }>;
    expect(offered.map((tool) => tool.function.name)).toEqual(expect.arrayContaining(['calculator', 'mcp__notes__echo', 'mcp__weather__book']));
    const book = offered.find((tool) => tool.function.name === 'mcp__weather__book')!;
    expect(book.function.parameters).toEqual(HTTP_TOOLS.find((tool) => tool.name === 'book')!.inputSchema);
  });

  it('runs a read-only tool at once, without asking for approval', async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_echo', 'mcp__notes__echo', '{"text":"hi"}')), answerTurn(...content('It said hi.')));
    const { sessionId } = await manager.create({ task: 'Echo hi.' });
    const chain = await untilStatus(sessionId, 'completed');
    expect(chain.map((step) => [step.kind, step.content]).slice(-3)).toEqual([
      ['tool_call', '{"text":"hi"}'],
      ['observation', 'echo: hi'],
      ['final_answer', 'It said hi.'],
    ]);
    expect(chain.some((step) => step.approval !== undefined)).toBe(false);
    expect((await eventsOf(sessionId)).some((event) => event.type === 'approval.requested')).toBe(false);
    expect(toolMessagesOf(1)).toEqual([{ role: 'tool', tool_call_id: expect.any(String), content: 'echo: hi' }]);
  });

  it('makes a tool that is not read-only wait for approval, and runs it once approved', async () => {
    const { sessionId, call } = await proposedNote();
    expect((await eventsOf(sessionId)).filter((event) => event.type === 'approval.requested')).toEqual([
      expect.objectContaining({ stepId: call.stepId, tool: 'mcp__notes__write_note', input: { title: 'Groceries' } }),
    ]);
    fake.reply(answerTurn(...content('Saved.')));
    await manager.approve({ sessionId, stepId: call.stepId, by: 'conn-a' });
    const chain = await untilStatus(sessionId, 'completed');
    expect(chain.at(-2)).toMatchObject({ kind: 'observation', content: 'Saved "Groceries".' });
  });

  it('refuses a correction of an MCP call that breaks its schema with BAD_CORRECTION, and re-runs a valid one with the new input', async () => {
    const { sessionId, call } = await proposedNote();
    await expect(manager.correct({ sessionId, stepId: call.stepId, content: '{"title":""}', by: 'conn-a' })).rejects.toMatchObject({
      code: 'BAD_CORRECTION',
      details: [expect.objectContaining({ path: ['title'] })],
    });
    await expect(manager.correct({ sessionId, stepId: call.stepId, content: '{"title":"x","extra":', by: 'conn-a' })).rejects.toMatchObject({ code: 'BAD_CORRECTION' });
    fake.reply(answerTurn(...content('Saved as Shopping.')));
    await manager.correct({ sessionId, stepId: call.stepId, content: '{"title":"Shopping","body":"milk"}', by: 'conn-a' });
    const chain = await untilStatus(sessionId, 'completed');
    expect(chain.slice(-3).map((step) => [step.kind, step.content])).toEqual([
      ['tool_call', '{"title":"Shopping","body":"milk"}'],
      ['observation', 'Saved "Shopping" (4 characters).'],
      ['final_answer', 'Saved as Shopping.'],
    ]);
    expect(toolMessagesOf(1)).toEqual([{ role: 'tool', tool_call_id: expect.any(String), content: 'Saved "Shopping" (4 characters).' }]);
  });

  it('re-runs a corrected call of a finished session with the new input, over HTTP too', async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_w', 'mcp__weather__lookup', '{"city":"Oslo"}')), answerTurn(...content('Sunny in Oslo.')));
    const { sessionId } = await manager.create({ task: 'Weather in Oslo?' });
    const first = await untilStatus(sessionId, 'completed');
    const call = first.find((step) => step.kind === 'tool_call')!;
    expect(first.find((step) => step.kind === 'observation')?.content).toBe('Sunny in Oslo.');
    await expect(manager.correct({ sessionId, stepId: call.stepId, content: '{"city":"Oslo","country":"NO"}' })).rejects.toMatchObject({ code: 'BAD_CORRECTION' });
    fake.reply(answerTurn(...content('Sunny in Bergen.')));
    await manager.correct({ sessionId, stepId: call.stepId, content: '{"city":"Bergen"}' });
    const chain = await untilStatus(sessionId, 'completed');
    expect(chain.slice(-2).map((step) => step.content)).toEqual(['Sunny in Bergen.', 'Sunny in Bergen.']);
    expect(http.calls.filter((entry) => entry.name === 'lookup').map((entry) => entry.args)).toEqual(expect.arrayContaining([{ city: 'Oslo' }, { city: 'Bergen' }]));
  });

  it('gives the model a crashed server as the observation, and the next call reaches it again', async () => {
    fake.reply(
      toolTurn(...toolCall(0, 'call_crash', 'mcp__notes__crash', '{}')),
      toolTurn(...toolCall(0, 'call_again', 'mcp__notes__echo', '{"text":"still there?"}')),
      answerTurn(...content('It recovered.')),
    );
    const { sessionId } = await manager.create({ task: 'Crash it, then echo.' });
    const chain = await untilStatus(sessionId, 'completed');
    const observations = chain.filter((step) => step.kind === 'observation').map((step) => step.content);
    expect(observations).toEqual([
      'Error: MCP server "notes" stopped during the crash call; its last words on stderr: "about to crash on purpose". It is started again on the next call.',
      'echo: still there?',
    ]);
    expect(toolMessagesOf(1)[0]!.content).toContain('stopped during the crash call');
  });

  it('gives the model a hung call as a timeout observation', async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_wait', 'mcp__notes__wait', '{}')), answerTurn(...content('It timed out.')));
    const { sessionId } = await manager.create({ task: 'Wait.' });
    const chain = await untilStatus(sessionId, 'completed');
    expect(chain.find((step) => step.kind === 'observation')).toMatchObject({
      content: `Error: MCP server "notes" did not answer the wait call within ${TIMEOUT_MS} ms, so it was cancelled (INTERTHOUGHT_MCP_TIMEOUT_MS).`,
      result: { error: expect.stringContaining('did not answer') },
    });
  });
});
