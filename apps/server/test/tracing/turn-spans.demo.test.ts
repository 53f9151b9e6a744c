import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Step } from '@interthought/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { createDemoAgent } from '../../src/agents/demo/index.js';
import { SessionManager } from '../../src/core/session-manager.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { createDefaultTools } from '../../src/tools/index.js';
import { until } from '../core/support/harness.js';
import { RecordedSpans } from './support/recorded-spans.js';
import { startTurnSpan } from '../../src/tracing/turn-span.js';

// The demo agent in the real session core, with the built-in tools, traced into memory.
let spans: RecordedSpans;
let manager: SessionManager;

beforeAll(() => {
  spans = RecordedSpans.start();
});
afterAll(async () => {
  await spans.stop();
});
afterEach(async () => {
  await manager.shutdown();
  spans.reset();
});

function start(): SessionManager {
  manager = new SessionManager({ traceTurn: startTurnSpan, store: new MemoryEventStore(), agents: new AgentRegistry('demo').register(createDemoAgent()), tools: createDefaultTools() });
  return manager;
}

async function untilStatus(sessionId: string, status: string): Promise<Step[]> {
  await until(async () => (await manager.snapshot(sessionId))?.session.status === status, `session ${sessionId} to be ${status}`);
  const snapshot = (await manager.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

describe('traces of demo-agent sessions', () => {
  it('makes a turn span per run, with a child span per tool call naming its tool_call step', async () => {
    const sessions = start();
    const { sessionId } = await sessions.create({ task: 'What is 12 * 7?' });
    const chain = await untilStatus(sessionId, 'completed');

    const turn = spans.one('invoke_agent demo');
    expect(turn.parentSpanContext).toBeUndefined();
    expect(turn.kind).toBe(SpanKind.INTERNAL);
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'demo',
      'gen_ai.conversation.id': sessionId,
      'interthought.session.id': sessionId,
      'interthought.agent': 'demo',
      'interthought.revision': 0,
      'interthought.correction': false,
    });
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);

    const call = chain.find((step) => step.kind === 'tool_call')!;
    const [tool, ...others] = spans.childrenOf(turn);
    expect(others).toEqual([]);
    expect(tool!.name).toBe('execute_tool calculator');
    expect(tool!.spanContext().traceId).toBe(turn.spanContext().traceId);
    expect(tool!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'calculator',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.id': call.stepId,
      'interthought.step.id': call.stepId,
      'interthought.tool.source': 'builtin',
    });
    expect(tool!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('gives each tool call of a multi-step run its own child span, in order', async () => {
    const sessions = start();
    const { sessionId } = await sessions.create({ task: 'What is 100 divided by 8 minus 2?' });
    const chain = await untilStatus(sessionId, 'completed');

    const turn = spans.one('invoke_agent demo');
    const calls = chain.filter((step) => step.kind === 'tool_call').map((step) => step.stepId);
    expect(calls.length).toBeGreaterThan(1);
    expect(spans.childrenOf(turn).map((span) => span.attributes['interthought.step.id'])).toEqual(calls);
  });

  it('marks the run that follows a correction, at the new revision, as a trace of its own', async () => {
    const sessions = start();
    const { sessionId } = await sessions.create({ task: 'What is 12 * 7?' });
    const first = await untilStatus(sessionId, 'completed');
    const call = first.find((step) => step.kind === 'tool_call')!;
    await sessions.correct({ sessionId, stepId: call.stepId, content: JSON.stringify({ expression: '12 * 8' }) });
    const chain = await untilStatus(sessionId, 'completed');

    const [before, after] = spans.named('invoke_agent demo');
    expect(before!.attributes).toMatchObject({ 'interthought.correction': false, 'interthought.revision': 0 });
    expect(after!.attributes).toMatchObject({ 'interthought.correction': true, 'interthought.revision': 1 });
    expect(after!.spanContext().traceId).not.toBe(before!.spanContext().traceId);
    // The corrected call itself is what the new run executes.
    const corrected = chain.find((step) => step.kind === 'tool_call')!;
    expect(corrected.status).toBe('corrected');
    expect(spans.childrenOf(after!).map((span) => span.attributes['interthought.step.id'])).toEqual([corrected.stepId]);
  });

  it('sets ERROR with the message on the span of a tool that fails; the turn, which reported it, is no error', async () => {
    const sessions = start();
    const { sessionId } = await sessions.create({ task: 'What is 12 * 7?' });
    const first = await untilStatus(sessionId, 'completed');
    const call = first.find((step) => step.kind === 'tool_call')!;
    await sessions.correct({ sessionId, stepId: call.stepId, content: JSON.stringify({ expression: '12 / 0' }) });
    const chain = await untilStatus(sessionId, 'completed');

    expect(chain.find((step) => step.kind === 'observation')!.content).toContain('Division by zero');
    const failed = spans.named('execute_tool calculator').find((span) => span.status.code === SpanStatusCode.ERROR)!;
    expect(failed.status.message).toMatch(/^Division by zero/);
    expect(failed.attributes['error.type']).toBe('ToolError');
    expect(failed.events.map((event) => event.name)).toContain('exception');
    const turn = spans.named('invoke_agent demo').find((span) => span.spanContext().spanId === failed.parentSpanContext?.spanId)!;
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('ends the span of a cancelled run as aborted, not as an error', async () => {
    const sessions = start();
    const { sessionId } = await sessions.create({ task: 'What is 12 * 7?', options: { tokenDelayMs: 20 } });
    await until(async () => ((await manager.snapshot(sessionId))?.steps.length ?? 0) > 0, 'the first step');
    await sessions.cancel(sessionId);
    await until(() => spans.named('invoke_agent demo').length === 1, 'the turn span to end');

    const turn = spans.one('invoke_agent demo');
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);
    expect(turn.events).toEqual([expect.objectContaining({ name: 'interthought.aborted', attributes: { 'interthought.abort.reason': expect.any(String) } })]);
  });
});
