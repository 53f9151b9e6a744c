import { describe, expect, it } from 'vitest';
import type { BaseEvent } from '@ag-ui/core';
import { ASK_USER_TOOL, type SessionEvent, type Step } from '@interthought/protocol';
import { AgUiRunStream } from '../../../src/http/ag-ui/run-stream.js';
import { SessionFeed, frame, step } from './run-stream-support.js';

/*
 * The serving side's interrupts for questions (PROTOCOL.md §25.6), fed the session events a server
 * sends (folded with the protocol's reducer) and read by the real `HttpAgent`: a sub-agent's
 * question is its interrupt, next to a sibling's approval, and an answered question is none.
 */

const feed = new SessionFeed('thread-q', 'Plan two trips');
const { ev } = feed;
const SID = feed.sessionId;

function whole(s: Step, text: string, extra: Record<string, unknown> = {}): SessionEvent[] {
  return [ev({ type: 'step.started', step: s }), ev({ type: 'step.delta', stepId: s.stepId, text }), ev({ type: 'step.completed', stepId: s.stepId, content: text, ...(s.tool === undefined ? {} : { tool: s.tool }), ...extra })];
}

const QUESTION = { question: 'Which city?', choices: ['Paris', 'Lyon'] };

/** Two sub-agents: the first asks the user, the second's shell call waits for approval. */
function twoWaiting(): SessionEvent[] {
  feed.restart();
  return [
    ev({ type: 'session.status', status: 'running' }),
    ...whole(step('T1', null, 0, 'tool_call', { tool: 'delegate' }), JSON.stringify({ task: 'a' })),
    ev({ type: 'subagent.started', scope: 'T1', depth: 1, name: 'first', agent: 'demo', task: 'a' }),
    ...whole(step('T2', 'T1', 1, 'tool_call', { tool: 'delegate' }), JSON.stringify({ task: 'b' })),
    ev({ type: 'subagent.started', scope: 'T2', depth: 1, name: 'second', agent: 'demo', task: 'b' }),
    ...whole(step('Q', null, 0, 'tool_call', { scope: 'T1', tool: ASK_USER_TOOL }), JSON.stringify(QUESTION)),
    ev({ type: 'input.requested', stepId: 'Q', ...QUESTION }),
    ev({ type: 'subagent.status', scope: 'T1', status: 'waiting' }),
    ...whole(step('C', null, 0, 'tool_call', { scope: 'T2', tool: 'shell' }), '{"cmd":"ls"}'),
    ev({ type: 'approval.requested', stepId: 'C', tool: 'shell', input: { cmd: 'ls' } }),
    ev({ type: 'subagent.status', scope: 'T2', status: 'waiting' }),
    ev({ type: 'session.status', status: 'waiting', detail: 'Waiting for your answer: Which city?' }),
  ];
}

describe('serving questions over AG-UI', () => {
  it('a sub-agent’s question is an input_required interrupt of its invocation, beside a sibling’s approval', async () => {
    const events = feed.streamOf(twoWaiting());
    const finish = events.at(-1) as unknown as { type: string; outcome: { type: string; interrupts: unknown[] } };
    expect(finish).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
    expect(finish.outcome.interrupts).toEqual([
      {
        id: 'Q',
        reason: 'input_required',
        message: 'Which city?',
        toolCallId: 'Q',
        responseSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        metadata: { interthought: { choices: ['Paris', 'Lyon'] } },
        subagentRunId: 'T1',
      },
      expect.objectContaining({ id: 'C', reason: 'tool_call', toolCallId: 'C', subagentRunId: 'T2' }),
    ]);
    const suspended = events.filter((event) => event.type === 'SUBAGENT_FINISHED');
    expect(suspended).toEqual([
      expect.objectContaining({ subagentRunId: 'T2', outcome: { type: 'suspended', interruptIds: ['C'] } }),
      expect.objectContaining({ subagentRunId: 'T1', outcome: { type: 'suspended', interruptIds: ['Q'] } }),
    ]);
    expect((await feed.clientRun(events)).seen.at(-1)?.type).toBe('RUN_FINISHED');
  });

  it('a question without choices has no choices in its metadata; an answered one is no interrupt', () => {
    feed.restart();
    const asked = [
      ev({ type: 'session.status', status: 'running' }),
      ...whole(step('Q', null, 0, 'tool_call', { tool: ASK_USER_TOOL }), JSON.stringify({ question: 'Why?' })),
      ev({ type: 'input.requested', stepId: 'Q', question: 'Why?' }),
      ev({ type: 'session.status', status: 'waiting' }),
    ];
    const waiting = feed.streamOf(asked).at(-1) as unknown as { outcome: { interrupts: Array<Record<string, unknown>> } };
    expect(waiting.outcome.interrupts).toEqual([expect.objectContaining({ id: 'Q', message: 'Why?', metadata: { interthought: {} } })]);

    const answered = [
      ...asked,
      ev({ type: 'input.resolved', stepId: 'Q', outcome: 'answered', by: 'u1' }),
      ev({ type: 'session.status', status: 'running' }),
      ...whole(step('O', 'Q', 1, 'observation', { tool: ASK_USER_TOOL }), 'Because.', { result: { answer: 'Because.', by: 'u1' } }),
      ...whole(step('F', 'O', 2, 'final_answer'), 'Then so be it.'),
      ev({ type: 'session.status', status: 'completed' }),
    ];
    const events = feed.streamOf(answered);
    // This run began before the answer: it ended at the question, as the session did then.
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
    const later = new AgUiRunStream(SID, 'run-2', { id: 'agui_test2' });
    later.send(feed.created());
    for (const event of answered) later.send(frame(event));
    const out: BaseEvent[] = [];
    later.open((event) => out.push(event), {});
    later.finishWaiting();
    expect(out.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });
});
