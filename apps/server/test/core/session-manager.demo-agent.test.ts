import { afterEach, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { createDemoAgent } from '../../src/agents/demo/index.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { SessionManager } from '../../src/core/session-manager.js';
import { createDefaultTools } from '../../src/tools/index.js';
import { fold, storedEvents, turns, until } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';
import { refusal } from './support/refusal.js';

let manager: SessionManager | undefined;
let store: MemoryEventStore;
afterEach(async () => {
  await manager?.shutdown();
  manager = undefined;
});

/** The real demo agent and the built-in tools, as the server wires them. */
function setup(): SessionManager {
  store = new MemoryEventStore();
  manager = new SessionManager({ store, agents: new AgentRegistry('demo').register(createDemoAgent()), tools: createDefaultTools() });
  return manager;
}

async function untilDone(sessions: SessionManager, sessionId: string): Promise<void> {
  await until(async () => ['completed', 'failed'].includes((await sessions.snapshot(sessionId))!.session.status), `session ${sessionId} to finish`);
  await turns(2);
}

async function chainOf(sessions: SessionManager, sessionId: string) {
  const snapshot = (await sessions.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

describe('SessionManager with the demo agent', () => {
  it('streams a tool-using chain to a final answer, and the log folds to the live state', async () => {
    const sessions = setup();
    const peer = new RecordingPeer();
    const { sessionId } = await sessions.create({ task: 'What is 12 * 7?' });
    await sessions.subscribe(sessionId, { peer }, 0);
    await untilDone(sessions, sessionId);
    const snapshot = (await sessions.snapshot(sessionId))!;
    expect(snapshot.session.status).toBe('completed');
    const chain = await chainOf(sessions, sessionId);
    expect(chain.at(-1)!.kind).toBe('final_answer');
    expect(chain.find((step) => step.kind === 'tool_call')).toMatchObject({ tool: 'calculator' });
    expect(chain.at(-1)!.content).toContain('84');
    const folded = fold(await storedEvents(store, sessionId));
    expect([...folded.steps.values()]).toEqual(snapshot.steps);
    expect(peer.events(sessionId)).toEqual(await storedEvents(store, sessionId));
  });

  it('re-runs the calculator with a corrected tool call and answers from its result', async () => {
    const sessions = setup();
    const { sessionId } = await sessions.create({ task: 'What is 12 * 7?' });
    await untilDone(sessions, sessionId);
    const toolCall = (await chainOf(sessions, sessionId)).find((step) => step.kind === 'tool_call')!;
    await sessions.correct({ sessionId, stepId: toolCall.stepId, content: JSON.stringify({ expression: '12 * 8' }) });
    await untilDone(sessions, sessionId);
    const chain = await chainOf(sessions, sessionId);
    const observation = chain[toolCall.index + 1]!;
    expect(observation).toMatchObject({ kind: 'observation', result: { value: 96 } });
    expect(chain.at(-1)!.content).toContain('96');
  });

  it('refuses a corrected tool call that fails the calculator\'s schema', async () => {
    const sessions = setup();
    const { sessionId } = await sessions.create({ task: 'What is 12 * 7?' });
    await untilDone(sessions, sessionId);
    const toolCall = (await chainOf(sessions, sessionId)).find((step) => step.kind === 'tool_call')!;
    const seq = (await sessions.snapshot(sessionId))!.seq;
    const error = await refusal(() => sessions.correct({ sessionId, stepId: toolCall.stepId, content: '{"expr":"1+1"}' }), 'BAD_CORRECTION');
    expect(error.details?.length).toBeGreaterThan(0);
    expect((await sessions.snapshot(sessionId))!.seq).toBe(seq);
  });
});
