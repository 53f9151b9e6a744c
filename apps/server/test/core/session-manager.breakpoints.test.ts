import { afterEach, describe, expect, it } from 'vitest';
import type { AgentRunContext } from '@interthought/agent';
import { TestAgent } from './support/test-agents.js';
import { createHarness, storedEvents, untilStatus, type Harness } from './support/harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.manager.shutdown();
  harness = undefined;
});

/** Writes a thought and a final answer it leaves open: the run's end closes it. */
function openEndedAgent(): TestAgent {
  return new TestAgent('open-ended', async (context: AgentRunContext) => {
    const thought = context.sink.start('thought');
    await thought.write('Thinking.');
    thought.end();
    const answer = context.sink.start('final_answer');
    await answer.write('Done.');
  });
}

describe('breakpoints at the steps a run closes itself (PROTOCOL.md §25.5)', () => {
  it('stops at a final answer the agent left open when its run ends: paused, not completed; resume ends it completed', async () => {
    harness = createHarness({ agents: [openEndedAgent()] });
    const { manager } = harness;
    const { sessionId } = await manager.create({ task: 'Answer', agent: 'open-ended', options: { breakpoints: [{ kind: 'final_answer' }] } });
    await untilStatus(manager, sessionId, 'paused');
    const snapshot = (await manager.snapshot(sessionId))!;
    expect(snapshot.session).toMatchObject({ status: 'paused', detail: 'Stopped at a breakpoint: after the final answer' });
    expect(snapshot.steps.map((step) => [step.kind, step.status, step.content])).toEqual([
      ['thought', 'completed', 'Thinking.'],
      ['final_answer', 'completed', 'Done.'],
    ]);
    await manager.resume(sessionId);
    await untilStatus(manager, sessionId, 'completed');
    const statuses = (await storedEvents(harness.store, sessionId)).flatMap((event) => (event.type === 'session.status' ? [event.status] : []));
    expect(statuses).toEqual(['running', 'paused', 'completed']);
  });
});
