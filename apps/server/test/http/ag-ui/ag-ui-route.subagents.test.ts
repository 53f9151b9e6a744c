import { EventType, type BaseEvent } from '@ag-ui/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../support/server.js';
import { ThreadClient, typesOf } from './support.js';

// The demo agent's multi-part task served over AG-UI (PROTOCOL.md §24.9) to the real HttpAgent:
// its parts run as parallel sub-agents, whose events arrive interleaved and attributed, and the
// client's verify stage accepts the stream.

const TASK = 'What is 17 * 23 + 4? Also, what is 15% of 240?';

type Attributed = BaseEvent & { subagentRunId?: string; messageId?: string; toolCallId?: string; toolCallName?: string; parentToolCallId?: string };

describe('POST /api/ag-ui/:agent: sub-agents', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('streams each part as a subagent of its delegate call, interleaved, and the client holds the right messages', async () => {
    const client = new ThreadClient(server.baseUrl);
    const events = (await client.say(TASK)) as Attributed[];
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });

    const delegates = events.filter((event) => event.type === EventType.TOOL_CALL_START && event.toolCallName === 'delegate');
    expect(delegates).toHaveLength(2);
    const started = events.filter((event) => event.type === EventType.SUBAGENT_STARTED);
    expect(started.map((event) => event.parentToolCallId)).toEqual(delegates.map((event) => event.toolCallId));
    expect(started.map((event) => event.subagentRunId)).toEqual(delegates.map((event) => event.toolCallId));
    const scopes = started.map((event) => event.subagentRunId!);
    expect(events.filter((event) => event.type === EventType.SUBAGENT_FINISHED).map((event) => event.subagentRunId).sort()).toEqual([...scopes].sort());

    // Every event of a sub-agent's steps carries its scope, and the two scopes' events interleave.
    const snapshot = (await server.app.sessions.snapshot(client.threadId))!;
    const scopeOf = new Map(snapshot.steps.map((step) => [step.stepId, step.scope]));
    for (const event of events) {
      const id = event.messageId ?? (event.type === EventType.TOOL_CALL_RESULT ? undefined : event.toolCallId);
      if (id === undefined || !scopeOf.has(id)) continue;
      expect(event.subagentRunId).toBe(scopeOf.get(id));
    }
    const lanes = events.filter((event) => event.subagentRunId !== undefined && event.type !== EventType.SUBAGENT_STARTED).map((event) => event.subagentRunId);
    const switches = lanes.filter((lane, at) => at > 0 && lane !== lanes[at - 1]).length;
    expect(switches).toBeGreaterThan(1);

    // The delegate calls' results are the parts' answers, and the final answer joins them.
    const results = events.filter((event) => event.type === EventType.TOOL_CALL_RESULT && event.subagentRunId === undefined).map((event) => event as unknown as { toolCallId: string; content: string });
    expect(results.map((result) => result.toolCallId)).toEqual(delegates.map((event) => event.toolCallId));
    expect(results[0]!.content).toContain('395');
    expect(results[1]!.content).toContain('36');
    const messages = client.agent.messages as Array<{ id: string; role: string; content?: string; subagentRunId?: string }>;
    const last = messages.at(-1)!;
    expect(last).toMatchObject({ role: 'assistant' });
    expect(last.content).toContain('395');
    expect(last.content).toContain('36');
    expect(last).not.toHaveProperty('subagentRunId');
    expect(new Set(messages.map((message) => message.subagentRunId).filter((scope) => scope !== undefined))).toEqual(new Set(scopes));

    // The client's messages tell the session as it is: a follow-up needs no MESSAGES_SNAPSHOT first.
    const next = await client.say('Thanks! And 10% of 90?');
    expect(typesOf(next).slice(0, 2)).not.toContain(EventType.MESSAGES_SNAPSHOT);
    expect(next.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
  });
});
