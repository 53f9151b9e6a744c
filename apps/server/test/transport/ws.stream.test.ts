import { DEFAULT_MAX_SUBAGENT_DEPTH, FIELD_LIMITS, PROTOCOL_VERSION, toSnapshot, type SessionEvent } from '@interthought/protocol';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_VERSION } from '../../src/config/index.js';
import { buildTestApp, startServer, type RunningServer } from '../support/server.js';
import { expectCompleteStream, foldEvents } from '../support/session-stream.js';
import { isSessionEvent, TestClient } from '../support/ws-client.js';

describe('ws stream via injectWS', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp({ maxSessionsPerConnection: 7, maxSubscriptionsPerConnection: 9, ratePerSec: 12, rateBurst: 24 });
  });
  afterAll(() => app.close());

  it('sends hello first, announcing the protocol, version, capabilities and limits', async () => {
    const client = await TestClient.inject(app);
    const hello = await client.waitForType('hello');
    expect(client.frames[0]).toBe(hello);
    expect(hello).toMatchObject({
      protocol: PROTOCOL_VERSION,
      serverVersion: SERVER_VERSION,
      capabilities: ['corrections', 'replay', 'pause', 'branches', 'delete', 'coalesced-deltas', 'session-list', 'approvals', 'conversation', 'auth-refresh', 'users', 'sharing', 'usage', 'models', 'subagents', 'questions', 'approval-rules', 'breakpoints', 'corrections-data'],
      limits: {
        maxFrameBytes: 65_536,
        maxTaskChars: FIELD_LIMITS.taskMax,
        maxCorrectionChars: FIELD_LIMITS.correctionMax,
        maxSessionsPerConnection: 7,
        maxSubscriptionsPerConnection: 9,
        requestsPerSecond: 12,
        requestBurst: 24,
        maxSubagentDepth: DEFAULT_MAX_SUBAGENT_DEPTH,
      },
    });
    await client.close();
  });

  it('gives every connection its own id', async () => {
    const [a, b] = await Promise.all([TestClient.inject(app), TestClient.inject(app)]);
    const [helloA, helloB] = await Promise.all([a.waitForType('hello'), b.waitForType('hello')]);
    expect(helloA.connectionId).not.toBe(helloB.connectionId);
    await Promise.all([a.close(), b.close()]);
  });

  it('answers session.create with session.created, then streams every event to completion', async () => {
    const client = await TestClient.inject(app);
    const id = client.send({ type: 'session.create', task: 'What is 12 * 7?' });
    const created = await client.waitForType('session.created');
    expect(created).toMatchObject({ requestId: id, session: { task: 'What is 12 * 7?', agent: 'demo', status: 'running', revision: 0 } });
    const sessionId = created.session.sessionId;
    const events = await client.untilFinished(sessionId);
    expectCompleteStream(sessionId, events);
    const firstEvent = client.frames.findIndex((frame) => isSessionEvent(frame));
    expect(client.frames.indexOf(created)).toBeLessThan(firstEvent);
    await client.close();
  });
});

describe('ws stream over a real socket', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('streams a created session to completion', async () => {
    const client = await TestClient.connect(server.wsUrl);
    expect((await client.waitForType('hello')).type).toBe('hello');
    const sessionId = await client.createSession('Convert 5 km to miles');
    expectCompleteStream(sessionId, await client.untilFinished(sessionId));
    await client.close();
  });

  it('shows two clients on one session identical event sequences', async () => {
    const creator = await TestClient.connect(server.wsUrl);
    const watcher = await TestClient.connect(server.wsUrl);
    const sessionId = await creator.createSession('What is 3 + 4?', { options: { tokenDelayMs: 2 } });
    const id = watcher.send({ type: 'session.subscribe', sessionId, afterSeq: 0 });
    expect(await watcher.answerTo(id)).toMatchObject({ type: 'session.subscribed', sessionId, afterSeq: 0 });
    const [fromCreator, fromWatcher] = await Promise.all([creator.untilFinished(sessionId), watcher.untilFinished(sessionId)]);
    expectCompleteStream(sessionId, fromCreator);
    expect(fromWatcher).toEqual(fromCreator);
    await Promise.all([creator.close(), watcher.close()]);
  });

  it('gives a late subscriber without a cursor a snapshot that continues into the same state', async () => {
    const creator = await TestClient.connect(server.wsUrl);
    const sessionId = await creator.createSession('What is 9 * 9?', { options: { tokenDelayMs: 2 } });
    await creator.waitForType('step.completed', (frame) => frame.sessionId === sessionId);
    const late = await TestClient.connect(server.wsUrl);
    const id = late.send({ type: 'session.subscribe', sessionId });
    const snapshot = await late.answerTo(id);
    if (snapshot.type !== 'session.snapshot') throw new Error(`expected a snapshot, got ${snapshot.type}`);
    const [all, rest] = await Promise.all([creator.untilFinished(sessionId), late.untilFinished(sessionId)]);
    expect(rest[0]?.seq).toBe(snapshot.seq + 1);
    const folded = foldEvents(sessionId, all.slice(0, snapshot.seq));
    expect({ steps: snapshot.steps, chain: snapshot.chain }).toEqual({ steps: toSnapshot(folded).steps, chain: toSnapshot(folded).chain });
    expect(all.slice(snapshot.seq)).toEqual(rest);
    await Promise.all([creator.close(), late.close()]);
  });

  it('replays exactly the missed events to a client that reconnects with afterSeq', async () => {
    const first = await TestClient.connect(server.wsUrl);
    const sessionId = await first.createSession('What is 144 / 12?', { options: { tokenDelayMs: 3 } });
    await first.waitForType('step.delta', (frame) => frame.sessionId === sessionId && frame.seq >= 5);
    first.terminate();
    await first.closed;
    const before = first.events(sessionId);
    const lastSeq = before.at(-1)?.seq ?? 0;

    const again = await TestClient.connect(server.wsUrl);
    const id = again.send({ type: 'session.subscribe', sessionId, afterSeq: lastSeq });
    expect(await again.answerTo(id)).toMatchObject({ type: 'session.subscribed', sessionId, afterSeq: lastSeq });
    const after = await again.untilFinished(sessionId);
    expect(after[0]?.seq).toBe(lastSeq + 1);
    const whole: SessionEvent[] = [...before, ...after];
    const state = expectCompleteStream(sessionId, whole);

    const response = await fetch(`${server.baseUrl}/api/sessions/${sessionId}`);
    const stored = (await response.json()) as { steps: unknown; chain: unknown; seq: number };
    expect(stored).toMatchObject({ steps: toSnapshot(state).steps, chain: toSnapshot(state).chain, seq: whole.length });
    await again.close();
  });

  it('stops sending a session\'s events after session.unsubscribed, while its run goes on', async () => {
    const quitter = await TestClient.connect(server.wsUrl);
    const stayer = await TestClient.connect(server.wsUrl);
    const sessionId = await quitter.createSession('What is 15 + 27?', { options: { tokenDelayMs: 3 } });
    stayer.send({ type: 'session.subscribe', sessionId, afterSeq: 0 });
    await quitter.waitForType('step.delta', (frame) => frame.sessionId === sessionId);
    const id = quitter.send({ type: 'session.unsubscribe', sessionId });
    const answer = await quitter.answerTo(id);
    expect(answer).toMatchObject({ type: 'session.unsubscribed', sessionId });
    expectCompleteStream(sessionId, await stayer.untilFinished(sessionId));
    const afterAnswer = quitter.frames.slice(quitter.frames.indexOf(answer) + 1);
    expect(afterAnswer.filter(isSessionEvent)).toEqual([]);
    await Promise.all([quitter.close(), stayer.close()]);
  });

  it('pauses, resumes and cancels, answering each with the session.status event carrying the request id', async () => {
    const client = await TestClient.connect(server.wsUrl);
    const sessionId = await client.createSession('What is 2 ** 10?', { options: { tokenDelayMs: 5 } });
    await client.waitForType('step.delta', (frame) => frame.sessionId === sessionId);

    const pause = client.send({ type: 'session.pause', sessionId });
    expect(await client.answerTo(pause)).toMatchObject({ type: 'session.status', sessionId, status: 'paused' });
    const again = client.send({ type: 'session.pause', sessionId });
    expect(await client.answerTo(again)).toMatchObject({ type: 'error', code: 'INVALID_STATE' });
    const resume = client.send({ type: 'session.resume', sessionId });
    expect(await client.answerTo(resume)).toMatchObject({ type: 'session.status', sessionId, status: 'running' });
    const cancel = client.send({ type: 'session.cancel', sessionId });
    expect(await client.answerTo(cancel)).toMatchObject({ type: 'session.status', sessionId, status: 'cancelled' });

    const events = client.events(sessionId);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(foldEvents(sessionId, events).session.status).toBe('cancelled');
    await client.close();
  });
});
