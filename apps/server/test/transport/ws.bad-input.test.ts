import { FIELD_LIMITS, type ServerMessage } from '@interthought/protocol';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionError } from '../../src/core/session-error.js';
import { createRealSessions } from '../support/real-sessions.js';
import { buildTestApp, startServer, type RunningServer } from '../support/server.js';
import { expectCompleteStream, startBystander, type Bystander } from '../support/session-stream.js';
import { TestClient } from '../support/ws-client.js';

type ErrorAnswer = Extract<ServerMessage, { type: 'error' }>;

/** Send one raw frame and return the error frame it caused. */
async function errorFor(client: TestClient, send: () => void): Promise<ErrorAnswer> {
  const before = client.frames.length;
  send();
  const frame = await client.waitFor((f) => f.type === 'error' && client.frames.indexOf(f) >= before, 'an error frame');
  return frame as ErrorAnswer;
}

describe('bad input on a real socket, while another client streams', () => {
  let server: RunningServer;
  let bystander: Bystander;
  let client: TestClient;

  beforeAll(async () => {
    server = await startServer();
    bystander = await startBystander(server.wsUrl);
    client = await TestClient.connect(server.wsUrl);
    await client.waitForType('hello');
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('answers a binary frame with BAD_JSON', async () => {
    const error = await errorFor(client, () => client.sendRaw(Buffer.from('{"type":"session.create"}'), { binary: true }));
    expect(error).toEqual({ type: 'error', code: 'BAD_JSON', message: 'binary frames are not accepted: send JSON text' });
  });

  it('answers text that is not JSON with BAD_JSON', async () => {
    const error = await errorFor(client, () => client.sendRaw('{"type": "session.create", task:'));
    expect(error).toMatchObject({ code: 'BAD_JSON' });
  });

  it('answers JSON that is not an object with BAD_FRAME', async () => {
    const error = await errorFor(client, () => client.sendRaw('[1, 2, 3]'));
    expect(error).toMatchObject({ code: 'BAD_FRAME', details: [{ path: [] }] });
  });

  it('answers an unknown type with UNKNOWN_TYPE and the request id', async () => {
    const error = await errorFor(client, () => client.sendRaw(JSON.stringify({ type: 'session.explode', id: 'boom-1' })));
    expect(error).toMatchObject({ code: 'UNKNOWN_TYPE', requestId: 'boom-1' });
    expect(error.message).toContain('session.create');
  });

  it('answers a frame that fails its schema with BAD_FRAME listing every issue', async () => {
    const frame = { type: 'session.create', id: 'bad-1', task: 42, colour: 'red' };
    const error = await errorFor(client, () => client.sendRaw(JSON.stringify(frame)));
    expect(error).toMatchObject({ code: 'BAD_FRAME', requestId: 'bad-1' });
    expect(error.details?.map((detail) => detail.path)).toEqual(expect.arrayContaining([['task'], ['colour']]));
  });

  it('refuses an empty task and a task over the limit, accepting one at the limit', async () => {
    const empty = await errorFor(client, () => client.send({ type: 'session.create', task: '' }));
    expect(empty).toMatchObject({ code: 'BAD_FRAME', details: [{ path: ['task'] }] });
    const long = await errorFor(client, () => client.send({ type: 'session.create', task: 'y'.repeat(FIELD_LIMITS.taskMax + 1) }));
    expect(long).toMatchObject({ code: 'BAD_FRAME', details: [{ path: ['task'] }] });
    const id = client.send({ type: 'session.create', task: 'z'.repeat(FIELD_LIMITS.taskMax) });
    expect(await client.answerTo(id)).toMatchObject({ type: 'session.created' });
  });

  it('answers requests for an unknown session with SESSION_NOT_FOUND', async () => {
    for (const type of ['session.subscribe', 'session.unsubscribe', 'session.pause', 'session.resume', 'session.cancel']) {
      const id = client.send({ type, sessionId: 'missing-session' });
      expect(await client.answerTo(id)).toMatchObject({ type: 'error', code: 'SESSION_NOT_FOUND', requestId: id });
    }
  });

  it('answers a cursor beyond the log with BAD_CURSOR', async () => {
    const id = client.send({ type: 'session.subscribe', sessionId: bystander.sessionId, afterSeq: 1_000_000 });
    expect(await client.answerTo(id)).toMatchObject({ type: 'error', code: 'BAD_CURSOR', requestId: id });
  });

  it('answers an unknown agent with AGENT_NOT_FOUND', async () => {
    const id = client.send({ type: 'session.create', task: 'hi', agent: 'nobody' });
    expect(await client.answerTo(id)).toMatchObject({ type: 'error', code: 'AGENT_NOT_FOUND', requestId: id });
  });

  it('keeps the connection usable after all of that', async () => {
    expect(client.closeInfo).toBeUndefined();
    const sessionId = await client.createSession('What is 11 * 11?');
    expectCompleteStream(sessionId, await client.untilFinished(sessionId));
  });

  it('never disturbed the other client\'s stream', async () => {
    await bystander.finish();
  });
});

describe('bad input through injectWS', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(() => app.close());

  it('answers every bad frame and stays open', async () => {
    const client = await TestClient.inject(app);
    await client.waitForType('hello');
    expect(await errorFor(client, () => client.sendRaw(Buffer.from([0xff, 0x00]), { binary: true }))).toMatchObject({ code: 'BAD_JSON' });
    expect(await errorFor(client, () => client.sendRaw('not json'))).toMatchObject({ code: 'BAD_JSON' });
    expect(await errorFor(client, () => client.sendRaw('{"id":"n1"}'))).toMatchObject({ code: 'BAD_FRAME', requestId: 'n1' });
    expect(await errorFor(client, () => client.send({ type: 'step.correct', sessionId: 's' }))).toMatchObject({ code: 'BAD_FRAME' });
    const sessionId = await client.createSession('Still here?');
    expectCompleteStream(sessionId, await client.untilFinished(sessionId));
    await client.close();
  });
});

describe('an unexpected failure in the core', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const sessions = createRealSessions();
    // A core that fails in a way it did not plan for: pause throws a plain Error.
    sessions.pause = async () => {
      throw new Error('database exploded at /var/lib/secret');
    };
    // And one refusal it did plan for, to compare.
    sessions.resume = async () => {
      throw new SessionError('INVALID_STATE', 'Nothing to resume.', [{ path: ['sessionId'], message: 'not paused' }]);
    };
    server = await startServer({}, { sessions });
  });
  afterAll(() => server.close());

  it('answers INTERNAL with a generic message and keeps both the connection and other streams going', async () => {
    const bystander = await startBystander(server.wsUrl);
    const client = await TestClient.connect(server.wsUrl);
    const id = client.send({ type: 'session.pause', sessionId: bystander.sessionId });
    const answer = await client.answerTo(id);
    expect(answer).toMatchObject({ type: 'error', code: 'INTERNAL', requestId: id });
    expect(JSON.stringify(answer)).not.toContain('secret');
    const resume = client.send({ type: 'session.resume', sessionId: bystander.sessionId });
    expect(await client.answerTo(resume)).toEqual({
      type: 'error',
      code: 'INVALID_STATE',
      requestId: resume,
      message: 'Nothing to resume.',
      details: [{ path: ['sessionId'], message: 'not paused' }],
    });
    const sessionId = await client.createSession('After the failure');
    expectCompleteStream(sessionId, await client.untilFinished(sessionId));
    await bystander.finish();
    await client.close();
  });
});
