import { describe, expect, it } from 'vitest';
import type { SessionEvent, Step } from '@interthought/protocol';
import { AgUiRunStream } from '../../../src/http/ag-ui/run-stream.js';
import { SessionFeed, frame, step } from './run-stream-support.js';
import { agreesWithChain, chainMessages } from '../../../src/http/ag-ui/chain-messages.js';

/*
 * The serving side's mapping of sub-agents (PROTOCOL.md §24.9), fed the session events a server
 * sends for a batch of two delegate calls whose sub-agents stream interleaved, and read by the real
 * `HttpAgent` (its verify and apply stages) over an SSE body the real encoder wrote.
 */

const feed = new SessionFeed('thread-sub', 'What is 17 * 23 + 4? Also, what is 15% of 240?');
const { ev } = feed;
const SID = feed.sessionId;

/** One step streamed whole: started, two deltas, completed. */
function streamed(s: Step, text: string, extra: Record<string, unknown> = {}): SessionEvent[] {
  const half = Math.ceil(text.length / 2);
  return [
    ev({ type: 'step.started', step: s }),
    ev({ type: 'step.delta', stepId: s.stepId, text: text.slice(0, half) }),
    ev({ type: 'step.delta', stepId: s.stepId, text: text.slice(half) }),
    ev({ type: 'step.completed', stepId: s.stepId, content: text, ...(s.tool === undefined ? {} : { tool: s.tool }), ...extra }),
  ];
}

/** The events of "17*23+4, and 15% of 240": a thought, a batch of two delegates, two sub-agents interleaved, the join, a final answer. */
function batchRun(): SessionEvent[] {
  feed.restart();
  const t1 = JSON.stringify({ task: 'What is 17 * 23 + 4?', name: 'part 1' });
  const t2 = JSON.stringify({ task: 'What is 15% of 240?', name: 'part 2' });
  const [a1s, a1d1, a1d2, a1c] = streamed(step('A1', null, 0, 'thought', { scope: 'T1' }), 'I compute 17*23+4.');
  const [b1s, b1d1, b1d2, b1c] = streamed(step('B1', null, 0, 'thought', { scope: 'T2' }), 'I take 15% of 240.');
  return inOrder([
    ev({ type: 'session.status', status: 'running' }),
    ...streamed(step('R1', null, 0, 'thought'), 'Two independent parts: one sub-agent each.'),
    ...streamed(step('T1', 'R1', 1, 'tool_call', { tool: 'delegate' }), t1),
    ev({ type: 'subagent.started', scope: 'T1', depth: 1, name: 'part 1', agent: 'demo', task: 'What is 17 * 23 + 4?' }),
    ...streamed(step('T2', 'T1', 2, 'tool_call', { tool: 'delegate' }), t2),
    ev({ type: 'subagent.started', scope: 'T2', depth: 1, name: 'part 2', agent: 'demo', task: 'What is 15% of 240?' }),
    // The two sub-agents stream at the same time: their events interleave.
    a1s!, b1s!, a1d1!, b1d1!, a1d2!, b1d2!, a1c!, b1c!,
    ...streamed(step('A2', 'A1', 1, 'final_answer', { scope: 'T1' }), '395'),
    ...streamed(step('B2', 'B1', 1, 'final_answer', { scope: 'T2' }), '36'),
    ev({ type: 'subagent.status', scope: 'T2', status: 'completed' }),
    ev({ type: 'subagent.status', scope: 'T1', status: 'completed' }),
    ...streamed(step('O1', 'T2', 3, 'observation', { tool: 'delegate' }), '395', { result: { subagent: 'T1', status: 'completed', answer: '395' } }),
    ...streamed(step('O2', 'O1', 4, 'observation', { tool: 'delegate' }), '36', { result: { subagent: 'T2', status: 'completed', answer: '36' } }),
    ...streamed(step('F', 'O2', 5, 'final_answer'), '17 × 23 + 4 = 395, and 15% of 240 is 36.'),
    ev({ type: 'session.status', status: 'completed' }),
  ]);
}

/** The events numbered in the order they are listed (the interleaved ones were made out of order). */
function inOrder(events: SessionEvent[]): SessionEvent[] {
  return events.map((event, at) => ({ ...event, seq: at + 1 }));
}

describe('serving sub-agents over AG-UI', () => {
  it('opens each scope with SUBAGENT_STARTED naming its delegate call, attributes its events, and closes it', () => {
    const events = feed.streamOf(batchRun());
    const started = events.filter((event) => event.type === 'SUBAGENT_STARTED');
    expect(started).toEqual([
      expect.objectContaining({ subagentRunId: 'T1', name: 'part 1', description: 'What is 17 * 23 + 4?', parentToolCallId: 'T1', metadata: { interthought: { agent: 'demo', depth: 1 } } }),
      expect.objectContaining({ subagentRunId: 'T2', name: 'part 2', parentToolCallId: 'T2' }),
    ]);
    // Every event of a scoped step carries its scope; the session's own steps carry none.
    const ofStep = (id: string) => events.filter((event) => (event as { messageId?: string }).messageId === id);
    for (const event of [...ofStep('A1'), ...ofStep('A2')]) expect(event).toMatchObject({ subagentRunId: 'T1' });
    for (const event of [...ofStep('B1'), ...ofStep('B2')]) expect(event).toMatchObject({ subagentRunId: 'T2' });
    for (const event of [...ofStep('R1'), ...ofStep('F')]) expect(event).not.toHaveProperty('subagentRunId');
    expect(events.filter((event) => event.type === 'SUBAGENT_FINISHED')).toEqual([
      expect.objectContaining({ subagentRunId: 'T2', outcome: { type: 'success' }, result: '36' }),
      expect.objectContaining({ subagentRunId: 'T1', outcome: { type: 'success' }, result: '395' }),
    ]);
    // The batch's observations answer its calls in order: the first T1, the second T2.
    expect(events.filter((event) => event.type === 'TOOL_CALL_RESULT')).toEqual([
      expect.objectContaining({ messageId: 'O1', toolCallId: 'T1', content: '395' }),
      expect.objectContaining({ messageId: 'O2', toolCallId: 'T2', content: '36' }),
    ]);
    // The two sub-agents' streams interleave.
    const order = events.map((event) => (event as { messageId?: string }).messageId).filter((id) => id === 'A1' || id === 'B1');
    expect(order.slice(0, 4)).toEqual(['A1', 'A1', 'B1', 'B1']);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('passes the real client’s verify stage, which builds the root and scoped messages the snapshot has', async () => {
    const events = feed.streamOf(batchRun());
    const { messages, seen } = await feed.clientRun(events);
    expect(seen.map((event) => event.type)).toContain('SUBAGENT_FINISHED');
    const byId = new Map(messages.map((message) => [message.id, message]));
    expect(byId.get('A2')).toMatchObject({ role: 'assistant', content: '395', subagentRunId: 'T1' });
    expect(byId.get('B2')).toMatchObject({ role: 'assistant', content: '36', subagentRunId: 'T2' });
    expect(byId.get('O1')).toMatchObject({ role: 'tool', toolCallId: 'T1', content: '395' });
    expect(byId.get('F')).toMatchObject({ role: 'assistant', content: '17 × 23 + 4 = 395, and 15% of 240 is 36.' });
    expect(byId.get('F')).not.toHaveProperty('subagentRunId');

    // The chain as messages (a MESSAGES_SNAPSHOT) tells what the client holds: the next run needs none.
    const stream = new AgUiRunStream(SID, 'run-2', { id: 'agui_test2' });
    stream.send(feed.created());
    for (const event of batchRun()) stream.send(frame(event));
    const snapshot = chainMessages(stream.state!);
    expect(snapshot.find((message) => message.id === 'A2')).toMatchObject({ subagentRunId: 'T1' });
    expect(snapshot.map((message) => message.id)).toEqual([`${SID}.task`, 'R1', 'T1', 'A1', 'A2', 'T2', 'B1', 'B2', 'O1', 'O2', 'F']);
    expect(agreesWithChain(stream.state!, messages)).toBe(true);
  });

  it('a sub-agent that fails ends with SUBAGENT_ERROR, and one still waiting at the run’s end is suspended on its interrupt', async () => {
    feed.restart();
    const failing = [
      ev({ type: 'session.status', status: 'running' }),
      ...streamed(step('T1', null, 0, 'tool_call', { tool: 'delegate' }), JSON.stringify({ task: 'a' })),
      ev({ type: 'subagent.started', scope: 'T1', depth: 1, name: 'demo', agent: 'demo', task: 'a' }),
      ...streamed(step('T2', 'T1', 1, 'tool_call', { tool: 'delegate' }), JSON.stringify({ task: 'b' })),
      ev({ type: 'subagent.started', scope: 'T2', depth: 1, name: 'demo', agent: 'demo', task: 'b' }),
      ev({ type: 'subagent.status', scope: 'T1', status: 'failed', error: 'no model' }),
      ...streamed(step('C', null, 0, 'tool_call', { scope: 'T2', tool: 'shell' }), '{"cmd":"ls"}'),
      ev({ type: 'approval.requested', stepId: 'C', tool: 'shell', input: { cmd: 'ls' } }),
      ev({ type: 'subagent.status', scope: 'T2', status: 'waiting' }),
      ev({ type: 'session.status', status: 'waiting' }),
    ];
    const events = feed.streamOf(failing);
    expect(events.find((event) => event.type === 'SUBAGENT_ERROR')).toMatchObject({ subagentRunId: 'T1', message: 'no model', code: 'failed' });
    const finish = events.at(-1) as unknown as { type: string; outcome: { type: string; interrupts: Array<{ id: string; subagentRunId?: string }> } };
    expect(finish.type).toBe('RUN_FINISHED');
    expect(finish.outcome.interrupts).toEqual([expect.objectContaining({ id: 'C', toolCallId: 'C', subagentRunId: 'T2' })]);
    expect(events.at(-2)).toMatchObject({ type: 'SUBAGENT_FINISHED', subagentRunId: 'T2', outcome: { type: 'suspended', interruptIds: ['C'] } });
    const { seen } = await feed.clientRun(events);
    expect(seen.at(-1)?.type).toBe('RUN_FINISHED');
  });
});
