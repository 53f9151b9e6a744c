import { describe, expect, it, vi } from 'vitest';
import { ASK_USER_TOOL } from '@interthought/protocol';
import { answerAtHead, askUser, connectWorker, ServerToolError, type WorkerAgent, type WorkerEvent } from '@interthought/agent';
import { startServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { WORKER_TOKEN } from './worker-client.js';
import { sdkWorkerServerPerTest } from './worker-server-per-test.js';

// `askUser` of the worker SDK (PROTOCOL.md §25.6, Part II §A6.3) against the real server: the run
// ends cleanly at the question, and the next run reads the answer with `answerAtHead`.
const host = sdkWorkerServerPerTest();
const { workers, clients } = host;

const QUESTION = { question: 'Which city?', choices: ['Paris', 'Lyon'] };

/** Asks first; once the chain ends with the answer, answers with it. */
function asker(outcomes: string[]): WorkerAgent {
  return {
    name: 'sdk-asker',
    description: 'Asks which city, then plans the trip',
    async run(context) {
      const told = answerAtHead(context.chain);
      if (told === undefined) {
        const thought = context.sink.start('thought');
        await thought.write('I need the city.');
        thought.end();
        await askUser(context, QUESTION);
        outcomes.push(context.signal.aborted ? 'asked' : 'went on');
        return;
      }
      const final = context.sink.start('final_answer');
      await final.write(told.answered ? `Off to ${told.answer} (choice ${told.choice ?? 'none'}, by ${told.by}).` : `Nobody answered (${told.reason}).`);
      final.end();
    },
  };
}

async function setup(agent: WorkerAgent, events: WorkerEvent[] = []): Promise<TestClient> {
  host.server = await startServer({ agentTokens: [WORKER_TOKEN] });
  workers.push(await connectWorker({ url: host.server.baseUrl, token: WORKER_TOKEN, agents: [agent], reconnect: false, onEvent: (event) => events.push(event) }));
  const client = await TestClient.connect(host.server.wsUrl);
  clients.push(client);
  return client;
}

async function chainOf(sessionId: string) {
  const snapshot = (await host.server!.app.sessions.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

describe('connectWorker: askUser', () => {
  it('asks with tool.run, ends the run without run.fail, and the next run answers with what the user said', async () => {
    const outcomes: string[] = [];
    const events: WorkerEvent[] = [];
    const client = await setup(asker(outcomes), events);
    const sessionId = await client.createSession('Plan a trip', { agent: 'sdk-asker', options: { tokenDelayMs: 0 } });
    const requested = await client.waitForType('input.requested', (frame) => frame.sessionId === sessionId);
    expect(requested).toMatchObject(QUESTION);
    await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'waiting');
    // askUser resolves once RUN_ABORTED reached the worker, with the run's signal aborted.
    await vi.waitUntil(() => outcomes.length > 0);
    expect(outcomes).toEqual(['asked']);
    expect((await chainOf(sessionId)).map((step) => [step.kind, step.tool, step.content])).toEqual([
      ['thought', undefined, 'I need the city.'],
      ['tool_call', ASK_USER_TOOL, JSON.stringify(QUESTION)],
    ]);

    client.send({ type: 'input.provide', sessionId, stepId: requested.stepId, text: 'Paris' });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    const chain = await chainOf(sessionId);
    expect(chain.at(-1)).toMatchObject({ kind: 'final_answer', content: expect.stringMatching(/^Off to Paris \(choice 0, by /u) });
    expect(chain.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'final_answer']);
    // Nothing was refused or failed on the way: asking is how the run ends.
    expect(events.filter((event) => event.type === 'refused' || event.type === 'error')).toEqual([]);
  });

  it('a question nobody answers in time: the next run reads it as unanswered', async () => {
    const client = await setup(asker([]));
    const sessionId = await client.createSession('Plan a trip', { agent: 'sdk-asker', options: { tokenDelayMs: 0, inputTimeoutMs: 1_000 } });
    await client.waitForType('input.requested', (frame) => frame.sessionId === sessionId);
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    expect((await chainOf(sessionId)).at(-1)).toMatchObject({ kind: 'final_answer', content: 'Nobody answered (timed out).' });
  });

  it('rejects input that is no question with a ServerToolError (BAD_TOOL_INPUT); the run goes on', async () => {
    let refused: unknown;
    const client = await setup({
      name: 'sdk-asker',
      description: 'Asks badly',
      async run(context) {
        refused = await askUser(context, { question: '' }).catch((error: unknown) => error);
        const final = context.sink.start('final_answer');
        await final.write('I could not ask.');
        final.end();
      },
    });
    const sessionId = await client.createSession('Plan a trip', { agent: 'sdk-asker', options: { tokenDelayMs: 0 } });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    expect(refused).toBeInstanceOf(ServerToolError);
    expect(refused).toMatchObject({ code: 'BAD_TOOL_INPUT' });
    expect((await chainOf(sessionId)).map((step) => step.kind)).toEqual(['final_answer']);
  });
});
