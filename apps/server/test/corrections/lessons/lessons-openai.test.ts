import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LESSONS_LIMITS, type ServerMessage, type Step } from '@interthought/protocol';
import { readAgentsCatalog } from '../../../src/config/agents-catalog.js';
import { SYSTEM_PROMPT } from '../../../src/agents/openai/history.js';
import { GUIDANCE_HEADER } from '../../../src/corrections/lessons/index.js';
import { FakeOpenAIServer, type RecordedRequest } from '../../agents/openai/support/fake-openai-server.js';
import { answerTurn, content } from '../../agents/openai/support/wire.js';
import { TestClient } from '../../support/ws-client.js';
import { ADA, BOB, HS256_SETUP, ROOT, ask, wsUrlWith, type UserServer } from '../../sharing/support/users.js';

/*
 * Lessons (PROTOCOL.md §26.4) on the real server, against the fake OpenAI endpoint: a model that
 * takes "25% off" for 10% off unless its system message carries a lesson that says otherwise. The
 * corrections are real ones, made through the WebSocket, and reach the next run through the index.
 */

const folder = mkdtempSync(join(tmpdir(), 'interthought-lessons-'));
const MISTAKE = 0.9;
const RIGHT = 0.75;

function priceOf(task: string): number {
  return Number(/(\d+) dollars/u.exec(task)?.[1] ?? Number.NaN);
}

/** What the fake model answers: 10% off, unless a lesson in its system message says a person corrected that. */
function modelAnswer(body: { messages: Array<{ role: string; content: string }> }): string {
  const learned = body.messages[0]!.content.includes('A person corrected it to');
  return String(priceOf(body.messages[1]!.content) * (learned ? RIGHT : MISTAKE));
}

let fake: FakeOpenAIServer;
let users: UserServer;
let ada: TestClient;
let bob: TestClient;

beforeAll(async () => {
  fake = await FakeOpenAIServer.start();
  fake.answerBy((body) => answerTurn(...content(modelAnswer(body))));
  const endpoint = { type: 'openai', baseURL: fake.baseURL, model: 'tutor-model', tools: [], retry: { baseDelayMs: 5 }, timeoutMs: 5_000 };
  const file = join(folder, 'agents.json');
  writeFileSync(file, JSON.stringify({ agents: { tutor: { ...endpoint, lessons: true, lessonsMax: 2 }, plain: endpoint } }));
  users = await HS256_SETUP.start({ agentsCatalog: readAgentsCatalog(file), tokenDelayMs: 0 });
  ada = await TestClient.connect(wsUrlWith(users.server, { token: await users.tokenFor(ADA) }));
  bob = await TestClient.connect(wsUrlWith(users.server, { token: await users.tokenFor(BOB) }));
});
afterAll(async () => {
  await ada.close();
  await bob.close();
  await users.close();
  await fake.close();
});

async function chainOf(sessionId: string): Promise<Step[]> {
  const snapshot = (await users.server.app.sessions.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

/** A finished session of `agent`, and the requests its run made. */
async function run(client: TestClient, task: string, agent: string): Promise<{ sessionId: string; chain: Step[]; requests: RecordedRequest[] }> {
  const before = fake.requests.length;
  const sessionId = await client.createSession(task, { agent });
  await client.untilFinished(sessionId);
  return { sessionId, chain: await chainOf(sessionId), requests: fake.requests.slice(before) };
}

async function correct(client: TestClient, sessionId: string, step: Step, text: string, note?: string): Promise<ServerMessage> {
  const answer = await ask(client, { type: 'step.correct', sessionId, stepId: step.stepId, content: text, ...(note === undefined ? {} : { note }) });
  expect(answer.type, JSON.stringify(answer)).toBe('correction.accepted');
  return answer;
}

/** The session's next finish after a correction restarted it. */
async function rerun(client: TestClient, sessionId: string, act: () => Promise<unknown>): Promise<{ chain: Step[]; requests: RecordedRequest[] }> {
  const before = fake.requests.length;
  // Frames from here on: the session completed before too.
  const from = client.frames.length;
  const completed = (frame: ServerMessage): boolean => frame.type === 'session.status' && frame.sessionId === sessionId && frame.status === 'completed' && client.frames.indexOf(frame) >= from;
  await act();
  await client.waitFor(completed, 'the session to complete again');
  return { chain: await chainOf(sessionId), requests: fake.requests.slice(before) };
}

const answerOf = (chain: Step[]): string | undefined => chain.findLast((step) => step.kind === 'final_answer')?.content;
const systemOf = (request: RecordedRequest): string => request.body.messages[0].content;

describe('an openai agent with "lessons": true', () => {
  let corrected: { sessionId: string; stepId: string; correctedStepId: string };

  it('the second run avoids the corrected mistake: the same user’s next similar session begins with a lessons step, and its request carries the guidance in the system message, bounded', async () => {
    const first = await run(ada, 'What is 25% off a price of 240 dollars?', 'tutor');
    // Nothing to learn from yet: no lessons step, and the model makes its mistake.
    expect(first.chain.map((step) => step.kind)).toEqual(['final_answer']);
    expect(answerOf(first.chain)).toBe(String(240 * MISTAKE));
    expect(systemOf(first.requests[0]!)).toBe(SYSTEM_PROMPT);
    const accepted = await correct(ada, first.sessionId, first.chain[0]!, '180', '25% off means a quarter less, not 10%');
    corrected = { sessionId: first.sessionId, stepId: first.chain[0]!.stepId, correctedStepId: (accepted as { newStepId: string }).newStepId };

    const second = await run(ada, 'What is 25% off a price of 360 dollars?', 'tutor');
    expect(second.chain.map((step) => step.kind)).toEqual(['thought', 'final_answer']);
    const [lessons] = second.chain;
    expect(lessons!.lessons).toEqual([corrected]);
    expect(lessons!.content.split('\n')).toEqual([
      GUIDANCE_HEADER,
      '- When asked "What is 25% off a price of 240 dollars?", you answered: 216 A person corrected it to: 180 — because 25% off means a quarter less, not 10%',
    ]);
    expect(answerOf(second.chain)).toBe(String(360 * RIGHT));
    // The guidance is the system message's last section, once: not also an assistant turn.
    const messages = second.requests[0]!.body.messages as Array<{ role: string; content: string }>;
    expect(messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(messages[0]!.content).toBe(`${SYSTEM_PROMPT}\n\n${lessons!.content}`);
    expect(messages[0]!.content.length - SYSTEM_PROMPT.length).toBeLessThanOrEqual(LESSONS_LIMITS.maxChars + 2);
  });

  it('gives another user nothing of Ada’s corrections', async () => {
    const bobs = await run(bob, 'What is 25% off a price of 360 dollars?', 'tutor');
    expect(bobs.chain.map((step) => step.kind)).toEqual(['final_answer']);
    expect(answerOf(bobs.chain)).toBe(String(360 * MISTAKE));
    expect(systemOf(bobs.requests[0]!)).toBe(SYSTEM_PROMPT);
  });

  it('gives nothing to a dissimilar task', async () => {
    const other = await run(ada, 'Name three rivers of Europe, 100 dollars aside', 'tutor');
    expect(other.chain.every((step) => step.lessons === undefined)).toBe(true);
  });

  it('a corrected lessons step gives the agent the corrected text; dropped, it gives nothing on the next run', async () => {
    const session = await run(ada, 'What is 25% off a price of 480 dollars?', 'tutor');
    const [lessons] = session.chain;
    expect(lessons!.lessons).toEqual([corrected]);

    const edited = await rerun(ada, session.sessionId, () => correct(ada, session.sessionId, lessons!, 'A person corrected it to: always take the whole percentage off.'));
    const editedStep = edited.chain[0]!;
    expect(editedStep).toMatchObject({ status: 'corrected', lessons: [corrected], content: 'A person corrected it to: always take the whole percentage off.' });
    expect(systemOf(edited.requests[0]!)).toBe(`${SYSTEM_PROMPT}\n\nA person corrected it to: always take the whole percentage off.`);
    // No second lessons step, and no correction note about the lessons step in the history.
    expect(edited.chain.filter((step) => step.lessons !== undefined)).toHaveLength(1);
    expect(edited.requests[0]!.body.messages.map((message: { role: string }) => message.role)).toEqual(['system', 'user']);

    const dropped = await rerun(ada, session.sessionId, () => correct(ada, session.sessionId, editedStep, LESSONS_LIMITS.dropped));
    expect(dropped.chain[0]).toMatchObject({ content: LESSONS_LIMITS.dropped, lessons: [corrected] });
    expect(systemOf(dropped.requests[0]!)).toBe(SYSTEM_PROMPT);
    expect(answerOf(dropped.chain)).toBe(String(480 * MISTAKE));
  });

  it('the corrections of a lessons step are no lessons themselves', async () => {
    const next = await run(ada, 'What is 25% off a price of 600 dollars?', 'tutor');
    expect(next.chain[0]!.lessons).toEqual([corrected]);
    expect(next.chain[0]!.content).not.toContain(LESSONS_LIMITS.dropped);
  });
});

describe('a run that goes on from a corrected step', () => {
  it('gets no lessons step put after it: a corrected final answer stays the last word', async () => {
    const root = await TestClient.connect(wsUrlWith(users.server, { token: await users.tokenFor(ROOT) }));
    try {
      const first = await run(root, 'What is 25% off a price of 800 dollars?', 'tutor');
      await correct(root, first.sessionId, first.chain[0]!, '600', 'a quarter less');
      const second = await run(root, 'What is 25% off a price of 900 dollars?', 'tutor');
      expect(second.chain[0]!.lessons).toBeDefined();
      await correct(root, second.sessionId, second.chain.at(-1)!, '675 dollars');
      // The first session's answer is corrected again, while the second's correction would match it.
      const [answer] = await chainOf(first.sessionId);
      const again = await rerun(root, first.sessionId, () => correct(root, first.sessionId, answer!, '600 dollars'));
      expect(again.chain.map((step) => [step.kind, step.content])).toEqual([['final_answer', '600 dollars']]);
      expect(again.requests).toEqual([]);
    } finally {
      await root.close();
    }
  });
});

describe('an agent without lessons', () => {
  it('gives nothing, though the same user corrected the same agent in a similar task', async () => {
    const first = await run(ada, 'What is 25% off a price of 200 dollars?', 'plain');
    await correct(ada, first.sessionId, first.chain[0]!, '150', '25% off means a quarter less');
    const second = await run(ada, 'What is 25% off a price of 400 dollars?', 'plain');
    expect(second.chain.map((step) => step.kind)).toEqual(['final_answer']);
    expect(systemOf(second.requests[0]!)).toBe(SYSTEM_PROMPT);
    expect(answerOf(second.chain)).toBe(String(400 * MISTAKE));
  });
});
