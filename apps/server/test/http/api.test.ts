import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_VERSION } from '../../src/config/index.js';
import { protocolSchemaRoutes } from '../../src/http/protocol-schema-routes.js';
import { restErrorHandler } from '../../src/http/rest-error-handler.js';
import { buildTestApp } from '../support/server.js';
import { expectCompleteStream } from '../support/session-stream.js';
import { TestClient } from '../support/ws-client.js';

describe('REST API', () => {
  let app: FastifyInstance;
  let client: TestClient;
  const sessionIds: string[] = [];

  beforeAll(async () => {
    app = await buildTestApp();
    client = await TestClient.inject(app);
    for (const task of ['first task', 'second task', 'third task', 'fourth task']) {
      const sessionId = await client.createSession(task);
      expectCompleteStream(sessionId, await client.untilFinished(sessionId));
      sessionIds.push(sessionId);
    }
  });
  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('reports health with the version, uptime and active sessions', async () => {
    // An app of its own: the session it runs must not join the list the other tests page through.
    const own = await buildTestApp();
    const ownClient = await TestClient.inject(own);
    try {
      const idle = await own.inject('/api/health');
      expect(idle.statusCode).toBe(200);
      expect(idle.json()).toEqual({ ok: true, version: SERVER_VERSION, uptime: expect.any(Number), sessions: 0 });
      const sessionId = await ownClient.createSession('kept running', { options: { tokenDelayMs: 5 } });
      const pause = ownClient.send({ type: 'session.pause', sessionId });
      await ownClient.answerTo(pause);
      expect((await own.inject('/api/health')).json()).toMatchObject({ sessions: 1 });
      const cancel = ownClient.send({ type: 'session.cancel', sessionId });
      await ownClient.answerTo(cancel);
      expect((await own.inject('/api/health')).json()).toMatchObject({ sessions: 0 });
    } finally {
      await ownClient.close();
      await own.close();
    }
  });

  it('lists the agents, the demo agent as the default', async () => {
    const response = await app.inject('/api/agents');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toContainEqual(expect.objectContaining({ name: 'demo', available: true, default: true }));
  });

  it('pages through sessions newest first', async () => {
    const newestFirst = [...sessionIds].reverse();
    const first = (await app.inject('/api/sessions?limit=2')).json() as { sessions: { sessionId: string }[]; nextCursor?: string };
    expect(first.sessions.map((info) => info.sessionId)).toEqual(newestFirst.slice(0, 2));
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await app.inject({ url: '/api/sessions', query: { limit: '2', before: first.nextCursor ?? '' } })).json() as {
      sessions: { sessionId: string }[];
      nextCursor?: string;
    };
    expect(second.sessions.map((info) => info.sessionId)).toEqual(newestFirst.slice(2, 4));
    expect(second.nextCursor).toBeUndefined();
  });

  it('uses a page of 20 by default', async () => {
    const page = (await app.inject('/api/sessions')).json() as { sessions: unknown[] };
    expect(page.sessions).toHaveLength(sessionIds.length);
  });

  it('refuses a bad page size with a JSON BAD_REQUEST', async () => {
    for (const limit of ['0', '101', 'ten']) {
      const response = await app.inject(`/api/sessions?limit=${limit}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('limit') });
    }
  });

  it('refuses a cursor that is not one with a JSON BAD_CURSOR', async () => {
    const response = await app.inject('/api/sessions?before=not-a-cursor');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ code: 'BAD_CURSOR', message: expect.stringContaining('not-a-cursor') });
  });

  it('returns a session\'s snapshot, equal to the fold of its events', async () => {
    const [sessionId] = sessionIds;
    if (!sessionId) throw new Error('no session');
    const response = await app.inject(`/api/sessions/${sessionId}`);
    expect(response.statusCode).toBe(200);
    const events = client.events(sessionId);
    const folded = expectCompleteStream(sessionId, events);
    expect(response.json()).toMatchObject({
      session: { sessionId, task: 'first task', status: 'completed' },
      chain: folded.chain,
      seq: events.length,
    });
  });

  it('answers an unknown session with 404 SESSION_NOT_FOUND', async () => {
    const response = await app.inject('/api/sessions/nope');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 'SESSION_NOT_FOUND', message: expect.stringContaining('nope') });
  });

  it('serves the protocol package\'s generated JSON Schema and AsyncAPI documents', async () => {
    for (const [url, file] of [
      ['/api/protocol/schema.json', 'interthought.schema.json'],
      ['/api/protocol/asyncapi.json', 'asyncapi.json'],
    ] as const) {
      const response = await app.inject(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('application/json');
      expect(response.body).toBe(readFileSync(new URL(`../../../../packages/protocol/schema/${file}`, import.meta.url), 'utf8'));
      expect(response.json()).toEqual(expect.any(Object));
    }
  });

  it('answers an unknown API route with a JSON 404', async () => {
    const response = await app.inject('/api/nothing-here');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 'NOT_FOUND', message: 'No route for GET /api/nothing-here.' });
  });
});

describe('protocol documents', () => {
  let app: FastifyInstance;
  const schemaDir = mkdtempSync(join(tmpdir(), 'interthought-schema-'));
  const schema = JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'Interthought' });

  beforeAll(async () => {
    writeFileSync(join(schemaDir, 'interthought.schema.json'), schema);
    app = Fastify({ logger: false });
    app.setErrorHandler(restErrorHandler);
    await app.register(protocolSchemaRoutes, { prefix: '/api', schemaDir });
  });
  afterAll(() => app.close());

  it('serves a generated document as JSON', async () => {
    const response = await app.inject('/api/protocol/schema.json');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('application/json');
    expect(response.body).toBe(schema);
  });

  it('explains how to generate a missing document', async () => {
    const response = await app.inject('/api/protocol/asyncapi.json');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 'NOT_FOUND', message: expect.stringContaining('pnpm --filter @interthought/protocol generate') });
  });
});
