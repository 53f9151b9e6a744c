import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { startBystander } from '../support/session-stream.js';
import { TestClient } from '../support/ws-client.js';

describe('frame size limit', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ maxFrameBytes: 2_048 });
  });
  afterAll(() => server.close());

  it('closes a connection that sends a frame over maxFrameBytes with 1009, leaving others alone', async () => {
    const bystander = await startBystander(server.wsUrl);
    const client = await TestClient.connect(server.wsUrl);
    await client.waitForType('hello');
    client.send({ type: 'session.create', task: 'x'.repeat(3_000) });
    expect((await client.closed).code).toBe(1009);
    await bystander.finish();
  });

  it('accepts a frame just under the limit', async () => {
    const client = await TestClient.connect(server.wsUrl);
    const task = 'x'.repeat(1_900);
    const sessionId = await client.createSession(task);
    expect(sessionId).toEqual(expect.any(String));
    await client.close();
  });
});

describe('rate limit', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ ratePerSec: 2, rateBurst: 4, maxSessionsPerConnection: 100 });
  });
  afterAll(() => server.close());

  it('answers RATE_LIMITED without carrying the request out, then closes a client that keeps going with 1008', async () => {
    const bystander = await startBystander(server.wsUrl);
    const client = await TestClient.connect(server.wsUrl);
    await client.waitForType('hello');
    const ids = Array.from({ length: 30 }, (_, index) => client.send({ type: 'session.create', task: `flood ${index}` }));
    const closed = await client.closed;
    expect(closed).toEqual({ code: 1008, reason: 'rate limit exceeded' });

    const answers = ids.map((id) => client.frames.filter((frame) => 'requestId' in frame && frame.requestId === id));
    const created = answers.filter((list) => list.some((frame) => frame.type === 'session.created')).length;
    const limited = answers.filter((list) => list.some((frame) => frame.type === 'error' && frame.code === 'RATE_LIMITED')).length;
    expect(created).toBeGreaterThanOrEqual(4);
    expect(limited).toBeGreaterThanOrEqual(4);
    for (const list of answers) expect(list.length).toBeLessThanOrEqual(1);

    // A rate-limited create made no session: the server holds exactly the bystander's and the created ones.
    const response = await fetch(`${server.baseUrl}/api/sessions?limit=100`);
    const page = (await response.json()) as { sessions: { task: string }[] };
    expect(page.sessions.filter((info) => info.task.startsWith('flood ')).length).toBe(created);
    await bystander.finish();
  });
});

describe('per-connection caps', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ maxSessionsPerConnection: 2, maxSubscriptionsPerConnection: 3 });
  });
  afterAll(() => server.close());

  it('refuses a session beyond the per-connection cap with LIMIT_EXCEEDED', async () => {
    const bystander = await startBystander(server.wsUrl);
    const client = await TestClient.connect(server.wsUrl);
    await client.createSession('one');
    await client.createSession('two');
    const id = client.send({ type: 'session.create', task: 'three' });
    const answer = await client.answerTo(id);
    expect(answer).toMatchObject({ type: 'error', code: 'LIMIT_EXCEEDED', requestId: id });
    expect(answer.type === 'error' ? answer.message : '').toContain('2 sessions');
    expect(client.closeInfo).toBeUndefined();
    await client.close();
    await bystander.finish();
  });

  it('refuses a subscription beyond the cap, but not a renewal, and frees a slot on unsubscribe', async () => {
    const owner = await TestClient.connect(server.wsUrl);
    const other = await TestClient.connect(server.wsUrl);
    const mine = [await owner.createSession('a'), await owner.createSession('b')];
    const theirs = [await other.createSession('c'), await other.createSession('d')];
    const third = owner.send({ type: 'session.subscribe', sessionId: theirs[0], afterSeq: 0 });
    expect(await owner.answerTo(third)).toMatchObject({ type: 'session.subscribed' });
    const fourth = owner.send({ type: 'session.subscribe', sessionId: theirs[1], afterSeq: 0 });
    expect(await owner.answerTo(fourth)).toMatchObject({ type: 'error', code: 'LIMIT_EXCEEDED', requestId: fourth });
    const renewal = owner.send({ type: 'session.subscribe', sessionId: mine[0] });
    expect(await owner.answerTo(renewal)).toMatchObject({ type: 'session.snapshot' });
    const leave = owner.send({ type: 'session.unsubscribe', sessionId: mine[1] });
    await owner.answerTo(leave);
    const retry = owner.send({ type: 'session.subscribe', sessionId: theirs[1], afterSeq: 0 });
    expect(await owner.answerTo(retry)).toMatchObject({ type: 'session.subscribed' });
    await Promise.all([owner.close(), other.close()]);
  });
});

describe('server-wide session cap', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ maxSessions: 2 });
  });
  afterAll(() => server.close());

  it('refuses a session beyond INTERTHOUGHT_MAX_SESSIONS active ones with LIMIT_EXCEEDED, until one ends', async () => {
    const client = await TestClient.connect(server.wsUrl);
    for (const task of ['held 1', 'held 2']) {
      // Paused sessions stay active, so the cap is reached for as long as the test needs.
      const sessionId = await client.createSession(task, { options: { tokenDelayMs: 5 } });
      const pause = client.send({ type: 'session.pause', sessionId });
      expect(await client.answerTo(pause)).toMatchObject({ type: 'session.status', status: 'paused' });
    }
    const id = client.send({ type: 'session.create', task: 'one too many' });
    expect(await client.answerTo(id)).toMatchObject({ type: 'error', code: 'LIMIT_EXCEEDED', requestId: id });

    const held = client.frames.find((frame) => frame.type === 'session.created');
    if (held?.type !== 'session.created') throw new Error('no session was created');
    const cancel = client.send({ type: 'session.cancel', sessionId: held.session.sessionId });
    await client.answerTo(cancel);
    const sessionId = await client.createSession('room again');
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ type: 'session.status', status: 'completed' });
    await client.close();
  });
});
