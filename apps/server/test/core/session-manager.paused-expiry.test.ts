import { afterEach, describe, expect, it } from 'vitest';
import type { AgentRunContext } from '@interthought/agent';
import { TestAgent } from './support/test-agents.js';
import { createHarness, turns, until, type Harness } from './support/harness.js';
import { refusal } from './support/refusal.js';
import type { Quota } from '../../src/core/commands/quota.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.manager.shutdown();
  harness = undefined;
});

/** Streams "tick " tokens until it has written `count`, then finishes. */
function countingAgent(count: number, signals: AbortSignal[] = []): TestAgent {
  return new TestAgent('counting', async (context: AgentRunContext) => {
    signals.push(context.signal);
    const writer = context.sink.start('thought');
    for (let index = 0; index < count; index += 1) await writer.write('tick ');
    writer.end();
  });
}

/** Wait, by the clock (the TTL is a timer), until the session reaches `status`. */
async function untilStatus(h: Harness, sessionId: string, status: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await h.manager.snapshot(sessionId))?.session.status !== status) {
    if (Date.now() > deadline) throw new Error(`session ${sessionId} did not become ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await turns(2);
}

async function contentOf(h: Harness, sessionId: string): Promise<string> {
  return (await h.manager.snapshot(sessionId))!.steps[0]?.content ?? '';
}

describe('a paused run gives its slot back', () => {
  it('is stopped and marked interrupted after the TTL, freeing the server’s slot, and resume continues it to the end', async () => {
    const signals: AbortSignal[] = [];
    const h = (harness = createHarness({ agents: [countingAgent(200, signals)], pausedRunTtlMs: 60, maxActiveSessions: 1 }));
    const { sessionId } = await h.manager.create({ task: 'tick', agent: 'counting', options: { tokenDelayMs: 2 } });
    await until(async () => (await contentOf(h, sessionId)).length > 0, 'the first token');
    await h.manager.pause(sessionId);
    expect(h.manager.activeSessionCount).toBe(1);
    await refusal(() => h.manager.create({ task: 'tick', agent: 'counting' }), 'LIMIT_EXCEEDED');

    await untilStatus(h, sessionId, 'interrupted');
    expect(signals[0]?.aborted).toBe(true);
    expect(h.manager.activeSessionCount).toBe(0);
    const status = (await h.manager.snapshot(sessionId))!.session;
    expect(status).toMatchObject({ status: 'interrupted' });
    expect(status.detail).toContain('Resume to continue');

    await h.manager.resume(sessionId);
    await untilStatus(h, sessionId, 'completed', 20_000);
  });

  it('keeps a session that was resumed before the TTL running, and re-arms on each pause', async () => {
    const h = (harness = createHarness({ agents: [countingAgent(40)], pausedRunTtlMs: 80 }));
    const { sessionId } = await h.manager.create({ task: 'tick', agent: 'counting', options: { tokenDelayMs: 5 } });
    await until(async () => (await contentOf(h, sessionId)).length > 0, 'the first token');
    await h.manager.pause(sessionId);
    await new Promise((resolve) => setTimeout(resolve, 40));
    await h.manager.resume(sessionId);
    await h.manager.pause(sessionId);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // 90 ms since the first pause, 50 since the second: the first timer must not fire.
    expect((await h.manager.snapshot(sessionId))!.session.status).toBe('paused');
    await h.manager.resume(sessionId);
    await untilStatus(h, sessionId, 'completed');
  });

  it('counts active sessions per quota, not per caller, and lets other quotas start', async () => {
    const quotaOf = (key: string): Quota => ({ key, maxActiveSessions: 1, runStartsPerMinute: 60, whose: 'your address' });
    const h = (harness = createHarness({ agents: [countingAgent(1_000_000)] }));
    const { sessionId } = await h.manager.create({ task: 'tick', agent: 'counting', quota: quotaOf('198.51.100.1') });
    expect((await refusal(() => h.manager.create({ task: 'tick', agent: 'counting', quota: quotaOf('198.51.100.1') }), 'LIMIT_EXCEEDED')).message).toContain('You already have 1');
    expect((await h.manager.create({ task: 'tick', agent: 'counting', quota: quotaOf('198.51.100.2') })).status).toBe('running');
    await h.manager.cancel(sessionId);
    expect((await h.manager.create({ task: 'tick', agent: 'counting', quota: quotaOf('198.51.100.1') })).status).toBe('running');
  });
});
