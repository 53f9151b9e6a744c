import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentRunContext } from '@interthought/agent';
import { agUiAgent } from '../../../src/agents/ag-ui/index.js';
import { ToolRegistry } from '../../../src/tools/tool-registry.js';
import { FakeAgUiServer, run, toolCall } from './fake-ag-ui-server.js';
import { ScopedRecordingSink } from './scoped-sink.js';

// Driving an AG-UI agent whose run delegates to subagents (PROTOCOL.md §24.9): its SUBAGENT_*
// events open and close scopes on the sink, and the events carrying a subagentRunId are steps of
// that scope. The agent is written here with @ag-ui/encoder; the sink records what the core gets.
let fake: FakeAgUiServer;

beforeEach(async () => {
  fake = await FakeAgUiServer.start();
});
afterEach(async () => {
  await fake.close();
});

function runOf(task: string): { sink: ScopedRecordingSink; go: () => Promise<void> } {
  const agent = agUiAgent({ name: 'agui', description: 'A test AG-UI agent', endpoint: { url: fake.url, headers: {}, timeoutMs: 2_000, retries: 0 }, env: {} });
  const sink = new ScopedRecordingSink();
  const controller = new AbortController();
  const context: AgentRunContext = { sessionId: `s-${task.replace(/\W+/g, '-')}`, task, chain: [], options: { tokenDelayMs: 0 }, tools: new ToolRegistry(), sink, signal: controller.signal };
  return { sink, go: () => agent.run(context) };
}

const by = (subagentRunId: string) => (event: Record<string, unknown>) => ({ ...event, subagentRunId });

describe('ag-ui agent: subagents as scopes', () => {
  it('opens a scope on each delegate call, streams each subagent’s interleaved events in its scope, and ends it', async () => {
    const a = by('sa-1');
    const b = by('sa-2');
    fake.script('two parts', {
      frames: run(
        ...toolCall('c1', 'delegate', '{"task":"What is 17 * 23 + 4?",', '"name":"part 1"}'),
        ...toolCall('c2', 'delegate', '{"task":"What is 15% of 240?"}'),
        { type: 'SUBAGENT_STARTED', subagentRunId: 'sa-1', name: 'math', parentToolCallId: 'c1' },
        { type: 'SUBAGENT_STARTED', subagentRunId: 'sa-2', name: 'percent', description: 'Percentages', parentToolCallId: 'c2', metadata: { interthought: { agent: 'demo' } } },
        // Chunks of the two subagents interleave: each is its own stream.
        a({ type: 'REASONING_MESSAGE_CHUNK', messageId: 'a-r', delta: 'I multiply ' }),
        b({ type: 'REASONING_MESSAGE_CHUNK', messageId: 'b-r', delta: 'I take 15% ' }),
        a({ type: 'REASONING_MESSAGE_CHUNK', messageId: 'a-r', delta: 'then add.' }),
        b({ type: 'REASONING_MESSAGE_CHUNK', messageId: 'b-r', delta: 'of 240.' }),
        a({ type: 'TEXT_MESSAGE_START', messageId: 'a-t', role: 'assistant' }),
        b({ type: 'TEXT_MESSAGE_START', messageId: 'b-t', role: 'assistant' }),
        a({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'a-t', delta: '395' }),
        b({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'b-t', delta: '36' }),
        a({ type: 'TEXT_MESSAGE_END', messageId: 'a-t' }),
        b({ type: 'TEXT_MESSAGE_END', messageId: 'b-t' }),
        { type: 'SUBAGENT_FINISHED', subagentRunId: 'sa-2', outcome: { type: 'success' } },
        { type: 'SUBAGENT_FINISHED', subagentRunId: 'sa-1' },
        { type: 'TOOL_CALL_RESULT', messageId: 'o1', toolCallId: 'c1', content: '395' },
        { type: 'TOOL_CALL_RESULT', messageId: 'o2', toolCallId: 'c2', content: '36' },
        { type: 'TEXT_MESSAGE_START', messageId: 'f', role: 'assistant' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'f', delta: '395 and 36.' },
        { type: 'TEXT_MESSAGE_END', messageId: 'f' },
      ),
    });
    const { sink, go } = runOf('two parts');
    await go();
    expect(sink.summary()).toEqual([
      { kind: 'tool_call', tool: 'delegate', content: '{"task":"What is 17 * 23 + 4?","name":"part 1"}' },
      { kind: 'tool_call', tool: 'delegate', content: '{"task":"What is 15% of 240?"}' },
      { kind: 'observation', tool: 'delegate', content: '395' },
      { kind: 'observation', tool: 'delegate', content: '36' },
      { kind: 'final_answer', content: '395 and 36.' },
    ]);
    const [first, second] = sink.opened;
    expect(first).toMatchObject({ callStepId: sink.steps[0]!.stepId, name: 'math', agent: 'math', task: 'What is 17 * 23 + 4?', outcome: { status: 'completed' } });
    expect(second).toMatchObject({ callStepId: sink.steps[1]!.stepId, name: 'percent', agent: 'demo', task: 'What is 15% of 240?', outcome: { status: 'completed' } });
    expect(first!.sink.summary()).toEqual([
      { kind: 'thought', content: 'I multiply then add.' },
      { kind: 'final_answer', content: '395' },
    ]);
    expect(second!.sink.summary()).toEqual([
      { kind: 'thought', content: 'I take 15% of 240.' },
      { kind: 'final_answer', content: '36' },
    ]);
    // Each step of a scope ended before its scope did.
    expect(first!.sink.steps.every((step) => step.ended)).toBe(true);
  });

  it('a SUBAGENT_ERROR fails that scope with its message, and nested subagents open in their parent’s scope', async () => {
    const outer = by('outer');
    fake.script('nested', {
      frames: run(
        ...toolCall('c1', 'delegate', '{"task":"research"}'),
        { type: 'SUBAGENT_STARTED', subagentRunId: 'outer', name: 'researcher', parentToolCallId: 'c1' },
        outer({ type: 'TOOL_CALL_START', toolCallId: 'c2', toolCallName: 'delegate' }),
        outer({ type: 'TOOL_CALL_ARGS', toolCallId: 'c2', delta: '{"task":"look it up"}' }),
        outer({ type: 'TOOL_CALL_END', toolCallId: 'c2' }),
        { type: 'SUBAGENT_STARTED', subagentRunId: 'inner', name: 'searcher', parentToolCallId: 'c2', parentSubagentRunId: 'outer' },
        { type: 'REASONING_MESSAGE_CHUNK', messageId: 'i-r', delta: 'No network.', subagentRunId: 'inner' },
        { type: 'SUBAGENT_ERROR', subagentRunId: 'inner', message: 'search is down' },
        outer({ type: 'TOOL_CALL_RESULT', messageId: 'o2', toolCallId: 'c2', content: 'failed: search is down' }),
        outer({ type: 'TEXT_MESSAGE_CHUNK', messageId: 'o-t', delta: 'Nothing found.' }),
        { type: 'SUBAGENT_FINISHED', subagentRunId: 'outer' },
        { type: 'TOOL_CALL_RESULT', messageId: 'o1', toolCallId: 'c1', content: 'Nothing found.' },
        { type: 'TEXT_MESSAGE_CHUNK', messageId: 'f', delta: 'I could not find it.' },
      ),
    });
    const { sink, go } = runOf('nested');
    await go();
    const outerScope = sink.opened[0]!;
    expect(outerScope).toMatchObject({ name: 'researcher', task: 'research', outcome: { status: 'completed' } });
    expect(outerScope.sink.summary()).toEqual([
      { kind: 'tool_call', tool: 'delegate', content: '{"task":"look it up"}' },
      { kind: 'observation', tool: 'delegate', content: 'failed: search is down' },
      { kind: 'final_answer', content: 'Nothing found.' },
    ]);
    const innerScope = outerScope.sink.opened[0]!;
    expect(innerScope).toMatchObject({ callStepId: outerScope.sink.steps[0]!.stepId, name: 'searcher', task: 'look it up', outcome: { status: 'failed', error: 'search is down' } });
    expect(innerScope.sink.summary()).toEqual([{ kind: 'thought', content: 'No network.' }]);
    expect(sink.summary().at(-1)).toEqual({ kind: 'final_answer', content: 'I could not find it.' });
  });

  const misbehaviours: Array<[string, Array<Record<string, unknown>>, RegExp]> = [
    [
      'an event of an unknown subagent',
      [{ type: 'TEXT_MESSAGE_CHUNK', messageId: 'x', delta: 'hi', subagentRunId: 'ghost' }],
      /TEXT_MESSAGE_START for subagent 'ghost', which no SUBAGENT_STARTED opened/,
    ],
    [
      'a subagent started on a tool call the run never made',
      [{ type: 'SUBAGENT_STARTED', subagentRunId: 's1', name: 'x', parentToolCallId: 'nope' }],
      /started subagent 's1' on tool call 'nope', which its run has not made/,
    ],
    [
      'a subagent started without a tool call',
      [{ type: 'SUBAGENT_STARTED', subagentRunId: 's1', name: 'x' }],
      /without a parentToolCallId/,
    ],
    [
      'an event of a subagent after it finished',
      [
        ...toolCall('c1', 'delegate', '{"task":"t"}'),
        { type: 'SUBAGENT_STARTED', subagentRunId: 's1', name: 'x', parentToolCallId: 'c1' },
        { type: 'SUBAGENT_FINISHED', subagentRunId: 's1' },
        { type: 'TEXT_MESSAGE_CHUNK', messageId: 'late', delta: 'late', subagentRunId: 's1' },
      ],
      /for subagent 's1' after it ended/,
    ],
  ];
  for (const [what, frames, reason] of misbehaviours) {
    it(`${what} fails the run with a reason`, async () => {
      fake.script(what, { frames: run(...frames) });
      const { go } = runOf(what);
      await expect(go()).rejects.toThrow(reason);
    });
  }

  it('the scopes still open when the run fails fail with it', async () => {
    fake.script('cut', {
      frames: [
        { type: 'RUN_STARTED', threadId: '', runId: '' },
        ...toolCall('c1', 'delegate', '{"task":"t"}'),
        { type: 'SUBAGENT_STARTED', subagentRunId: 's1', name: 'x', parentToolCallId: 'c1' },
        { type: 'REASONING_MESSAGE_CHUNK', messageId: 'r', delta: 'working', subagentRunId: 's1' },
        { type: 'RUN_ERROR', message: 'model crashed' },
      ],
    });
    const { sink, go } = runOf('cut');
    await expect(go()).rejects.toThrow('model crashed');
    expect(sink.opened[0]).toMatchObject({ outcome: { status: 'failed', error: 'model crashed' } });
    expect(sink.opened[0]!.sink.summary()).toEqual([{ kind: 'thought', content: 'working' }]);
  });
});
