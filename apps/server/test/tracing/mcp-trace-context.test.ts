import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { createOpenAIAgent } from '../../src/agents/openai/index.js';
import { SessionManager } from '../../src/core/session-manager.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { addMcpTools, type McpTools } from '../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../src/tools/tool-registry.js';
import { FakeOpenAIServer } from '../agents/openai/support/fake-openai-server.js';
import { testEnv } from '../agents/openai/support/run-context.js';
import { answerTurn, content, toolCall, toolTurn } from '../agents/openai/support/wire.js';
import { RecordingLog, eventually, httpServer, mcpConfig } from '../tools/mcp/support/mcp-test-config.js';
import { RecordedSpans } from './support/recorded-spans.js';
import { TraceProbeMcpServer } from './support/trace-probe-mcp-server.js';
import { startTurnSpan } from '../../src/tracing/turn-span.js';

// The openai agent (against the fake endpoint) calls a tool of an MCP server over HTTP.
let probe: TraceProbeMcpServer;
let mcp: McpTools;
let tools: ToolRegistry;
let fake: FakeOpenAIServer;
let manager: SessionManager;

beforeAll(async () => {
  probe = await TraceProbeMcpServer.start();
  tools = new ToolRegistry();
  mcp = await addMcpTools(tools, mcpConfig([httpServer(probe.url, 'probe')]), new RecordingLog());
});
afterAll(async () => {
  await mcp?.close();
  await probe?.close();
});
beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
  manager = new SessionManager({ traceTurn: startTurnSpan, store: new MemoryEventStore(), agents: new AgentRegistry('openai').register(createOpenAIAgent(testEnv(fake.baseURL))), tools });
});
afterEach(async () => {
  await manager.shutdown();
  await fake.close();
});

async function runProbeSession(): Promise<void> {
  fake.reply(toolTurn(...toolCall(0, 'call_1', 'mcp__probe__trace_probe', '{}')), answerTurn(...content('Done.')));
  const { sessionId } = await manager.create({ task: 'Probe it.' });
  await eventually(async () => (await manager.snapshot(sessionId))?.session.status === 'completed', 'the session to complete');
}

describe('the trace context on MCP tool calls', () => {
  it('sends the execute_tool span as W3C traceparent in the tools/call _meta', async () => {
    const spans = RecordedSpans.start();
    try {
      await runProbeSession();
      const tool = spans.one('execute_tool mcp__probe__trace_probe');
      const { traceId, spanId } = tool.spanContext();
      expect(probe.metas.at(-1)).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
      expect(tool.attributes).toMatchObject({ 'interthought.tool.source': 'mcp', 'interthought.mcp.server': 'probe' });
    } finally {
      await spans.stop();
    }
  });

  it('adds no _meta with tracing off', async () => {
    await runProbeSession();
    expect(probe.metas.at(-1)).toBeUndefined();
  });
});
