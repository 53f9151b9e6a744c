import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWorker, type AgentWorker, type WorkerRunContext } from '@interthought/agent';
import type { Step } from '@interthought/protocol';
import { readAgentsCatalog } from '../../../src/config/agents-catalog.js';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { TestWorker, WORKER_TOKEN } from '../../agents/remote/worker-client.js';

/*
 * A `remote` agent of the agents file with "lessons": true (PROTOCOL.md §26.4, §A5.1): its
 * worker's `run.start` carries the guidance, and the agent SDK gives it to worker code as
 * `context.lessons`. Without auth, every user's corrections count.
 */

let server: RunningServer;
let client: TestClient;
let worker: AgentWorker;
const seen: Array<string | undefined> = [];

/** Worker code that learns: it says "shorter" once a lesson told it, "a long answer" before. */
async function coach(context: WorkerRunContext): Promise<void> {
  seen.push(context.lessons);
  if (context.chain.at(-1)?.kind === 'final_answer') return;
  const writer = context.sink.start('final_answer');
  await writer.write(context.lessons?.includes('shorter') === true ? 'Short.' : 'A long, long answer.');
  writer.end();
}

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'interthought-lessons-')), 'agents.json');
  writeFileSync(file, JSON.stringify({ agents: { coach: { type: 'remote', description: 'Coaches writers', lessons: true } } }));
  server = await startServer({ agentTokens: [WORKER_TOKEN], agentsCatalog: readAgentsCatalog(file), tokenDelayMs: 0 });
  client = await TestClient.connect(server.wsUrl);
  worker = await connectWorker({ url: server.baseUrl, token: WORKER_TOKEN, agents: [{ name: 'coach', description: 'Coaches writers', run: coach }], reconnect: { initialMs: 50, maxMs: 200 } });
});
afterAll(async () => {
  await worker.close();
  await client.close();
  await server.close();
});

async function chainOf(sessionId: string): Promise<Step[]> {
  const snapshot = (await server.app.sessions.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

describe('a worker of a lessons agent', () => {
  it('gets the guidance in run.start.lessons, which the SDK gives its code as context.lessons', async () => {
    const first = await client.createSession('Write a summary of the meeting notes', { agent: 'coach' });
    await client.untilFinished(first);
    const [answer] = await chainOf(first);
    expect(answer!.content).toBe('A long, long answer.');
    expect(seen).toEqual([undefined]);
    const id = client.send({ type: 'step.correct', sessionId: first, stepId: answer!.stepId, content: 'Short.', note: 'make it shorter' });
    expect((await client.answerTo(id)).type).toBe('correction.accepted');

    const second = await client.createSession('Write a summary of the design notes', { agent: 'coach' });
    await client.untilFinished(second);
    const chain = await chainOf(second);
    expect(chain.map((step) => step.kind)).toEqual(['thought', 'final_answer']);
    expect(chain[0]!.lessons).toEqual([expect.objectContaining({ sessionId: first, stepId: answer!.stepId })]);
    expect(seen.at(-1)).toBe(chain[0]!.content);
    expect(chain[1]!.content).toBe('Short.');
  });

  it('puts the guidance on the wire as run.start.lessons', async () => {
    const raw = await TestWorker.serving(server.baseUrl, 'coach');
    try {
      await worker.close();
      const sessionId = await client.createSession('Write a summary of the budget notes', { agent: 'coach' });
      const start = await raw.waitForType('run.start', (frame) => frame.sessionId === sessionId);
      expect(start.lessons).toEqual(start.chain[0]!.content);
      expect(start.lessons).toContain('make it shorter');
      raw.step(start.runId, 'a', 'final_answer', 'Short.');
      raw.send({ type: 'run.end', runId: start.runId });
      await client.untilFinished(sessionId);
    } finally {
      raw.close();
    }
  });
});
