import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { agUiAgent } from '../../../src/agents/ag-ui/index.js';
import { SessionManager } from '../../../src/core/session-manager.js';
import { MemoryEventStore } from '../../../src/store/memory-event-store.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import { FakeAgUiServer, run, toolCall } from './fake-ag-ui-server.js';
import { untilSettled } from './support.js';

/*
 * The nesting limit (INTERTHOUGHT_MAX_SUBAGENT_DEPTH, PROTOCOL.md §24.1) holds for sub-agents an
 * AG-UI agent runs itself (its SUBAGENT_STARTED), as it does for the server's own `delegate`: a
 * scope opened deeper fails that agent's run, with a reason, and nothing else.
 */

let fake: FakeAgUiServer;
let manager: SessionManager;

beforeEach(async () => {
  fake = await FakeAgUiServer.start();
  manager = new SessionManager({
    store: new MemoryEventStore(),
    agents: new AgentRegistry('agui').register(agUiAgent({ name: 'agui', description: 'A test AG-UI agent', endpoint: { url: fake.url, headers: {}, timeoutMs: 2_000, retries: 0 }, env: {} })),
    tools: createDefaultTools(),
    defaultTokenDelayMs: 0,
    maxSubagentDepth: 1,
  });
});
afterEach(async () => {
  await manager.shutdown();
  await fake.close();
});

/** The run's delegate call c1, its sub-agent 'outer' started on it, and `inside` written by that sub-agent. */
function inOuterScope(...inside: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return [
    ...toolCall('c1', 'delegate', '{"task":"research"}'),
    { type: 'SUBAGENT_STARTED', subagentRunId: 'outer', name: 'researcher', parentToolCallId: 'c1' },
    ...inside.map((event) => ({ ...event, subagentRunId: 'outer' })),
  ];
}

describe('sub-agents an AG-UI agent runs itself', () => {
  it('open up to the server\'s depth limit', async () => {
    const task = 'one level';
    fake.script(task, {
      frames: run(
        ...inOuterScope({ type: 'TEXT_MESSAGE_CHUNK', messageId: 'o-t', delta: 'Found it.' }),
        { type: 'SUBAGENT_FINISHED', subagentRunId: 'outer' },
        { type: 'TOOL_CALL_RESULT', messageId: 'o1', toolCallId: 'c1', content: 'Found it.' },
        { type: 'TEXT_MESSAGE_CHUNK', messageId: 'f', delta: 'Done.' },
      ),
    });
    const { sessionId } = await manager.create({ task, agent: 'agui', options: {} });
    const { chain } = await untilSettled(manager, sessionId, 'completed');
    expect(chain.at(-1)).toMatchObject({ kind: 'final_answer', content: 'Done.' });
    const snapshot = (await manager.snapshot(sessionId))!;
    expect(snapshot.subagents?.map((info) => [info.depth, info.status])).toEqual([[1, 'completed']]);
  });

  it('fail the run, with the limit in its reason, when one would nest deeper', async () => {
    const task = 'two levels';
    fake.script(task, {
      frames: run(
        ...inOuterScope(...toolCall('c2', 'delegate', '{"task":"look it up"}')),
        { type: 'SUBAGENT_STARTED', subagentRunId: 'inner', name: 'searcher', parentToolCallId: 'c2', parentSubagentRunId: 'outer' },
        { type: 'TEXT_MESSAGE_CHUNK', messageId: 'i-t', delta: 'deep', subagentRunId: 'inner' },
      ),
    });
    fake.script('What is 2 + 2?', { frames: run({ type: 'TEXT_MESSAGE_CHUNK', messageId: 'b', delta: '4' }) });
    const bystander = await manager.create({ task: 'What is 2 + 2?', agent: 'agui', options: {} });
    const { sessionId } = await manager.create({ task, agent: 'agui', options: {} });
    const failed = await untilSettled(manager, sessionId, 'failed');
    expect(failed.error).toMatch(/subagent 'inner' cannot start: Sub-agents nest at most 1 deep/);
    const snapshot = (await manager.snapshot(sessionId))!;
    expect(snapshot.subagents?.map((info) => info.depth)).toEqual([1]);
    // The other session's run is its own: it completes.
    const other = await untilSettled(manager, bystander.sessionId, 'completed');
    expect(other.chain.at(-1)).toMatchObject({ kind: 'final_answer', content: '4' });
  });
});
