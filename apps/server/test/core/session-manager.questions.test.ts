import { describe, expect, it } from 'vitest';
import type { Agent } from '@interthought/agent';
import { askerAgent } from './service-contract/asking-agents.js';
import { TestAgent } from './support/test-agents.js';
import { createHarness, until, untilStatus, type Harness } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';
import { refusal } from './support/refusal.js';

/** Runs until it is stopped: a session of it holds its active slot. */
function heldAgent(): Agent {
  return new TestAgent('held', (context) => new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason))));
}

/** An `asker` session waiting for its answer. */
async function asking(harness: Harness): Promise<{ sessionId: string; stepId: string }> {
  const peer = new RecordingPeer();
  const { sessionId } = await harness.manager.create({ task: 'Replace a number', agent: 'asker' }, { peer });
  await untilStatus(harness.manager, sessionId, 'waiting');
  await until(() => peer.ofType('input.requested').length > 0, 'the question');
  return { sessionId, stepId: peer.ofType('input.requested')[0]!.stepId as string };
}

// The refusals of §25.2 that need the server's own settings: the agent's availability, the cap of active sessions.
describe('input.provide refusals that depend on the server', () => {
  it('refuses an answer with AGENT_UNAVAILABLE while the agent is unavailable, and the question keeps waiting', async () => {
    const asker = askerAgent() as TestAgent;
    const harness = createHarness({ agents: [asker] });
    const { sessionId, stepId } = await asking(harness);
    asker.availabilityNow = { available: false, reason: 'its worker left' };
    const refused = await refusal(() => harness.manager.provideInput({ sessionId, stepId, text: '5' }), 'AGENT_UNAVAILABLE');
    expect(refused.message).toContain('its worker left');
    expect((await harness.manager.snapshot(sessionId))!.steps.find((step) => step.stepId === stepId)?.question).toMatchObject({ state: 'pending' });
    asker.availabilityNow = { available: true };
    await harness.manager.provideInput({ sessionId, stepId, text: '5' });
    await untilStatus(harness.manager, sessionId, 'completed');
  });

  it('refuses an answer with LIMIT_EXCEEDED when no active slot is free: a waiting question holds none', async () => {
    const harness = createHarness({ agents: [askerAgent(), heldAgent()], maxActiveSessions: 1 });
    const { sessionId, stepId } = await asking(harness);
    expect(harness.manager.activeSessionCount).toBe(0);
    const { sessionId: held } = await harness.manager.create({ task: 'Hold the slot', agent: 'held' });
    await refusal(() => harness.manager.provideInput({ sessionId, stepId, text: '5' }), 'LIMIT_EXCEEDED');
    await harness.manager.cancel(held);
    await harness.manager.provideInput({ sessionId, stepId, text: '5' });
    await untilStatus(harness.manager, sessionId, 'completed');
  });
});
