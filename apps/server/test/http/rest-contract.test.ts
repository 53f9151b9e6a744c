import { AgentListingSchema, HealthSchema, RestErrorSchema, SessionPageSchema, SessionSnapshotBodySchema, SessionInfoSchema } from '@interthought/protocol';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { buildTestApp } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

/**
 * Every REST body parses with the protocol package's schema (what the web app and third parties
 * type their calls with), and carries no field the schema does not declare.
 */
function expectContract(schema: z.ZodObject, body: unknown): void {
  expect(schema.safeParse(body).error?.issues ?? []).toEqual([]);
  expect(Object.keys(body as object).filter((key) => !(key in schema.shape))).toEqual([]);
}

describe('REST bodies follow the protocol package\'s schemas', () => {
  let app: FastifyInstance;
  let client: TestClient;
  let sessionId: string;

  beforeAll(async () => {
    app = await buildTestApp();
    client = await TestClient.inject(app);
    for (const task of ['What is 6 * 7?', 'What is 20% of 150?']) {
      sessionId = await client.createSession(task);
      await client.untilFinished(sessionId);
    }
  });
  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('GET /api/health', async () => {
    expectContract(HealthSchema, (await app.inject('/api/health')).json());
  });

  it('GET /api/agents', async () => {
    const agents = (await app.inject('/api/agents')).json() as unknown[];
    expect(agents.length).toBeGreaterThan(0);
    for (const agent of agents) expectContract(AgentListingSchema, agent);
    // Exactly one default, and every unavailable agent says why.
    const listed = agents.map((agent) => AgentListingSchema.parse(agent));
    expect(listed.filter((agent) => agent.default).map((agent) => agent.name)).toEqual(['demo']);
    expect(listed.filter((agent) => !agent.available && !agent.reason)).toEqual([]);
  });

  it('GET /api/sessions, with each session summary and the cursor of the next page', async () => {
    const first = (await app.inject('/api/sessions?limit=1')).json() as { sessions: unknown[]; nextCursor?: string };
    expectContract(SessionPageSchema, first);
    expect(first.nextCursor).toEqual(expect.any(String));
    const last = (await app.inject({ url: '/api/sessions', query: { limit: '1', before: first.nextCursor ?? '' } })).json() as { sessions: unknown[] };
    expectContract(SessionPageSchema, last);
    for (const info of [...first.sessions, ...last.sessions]) expectContract(SessionInfoSchema, info);
  });

  it('GET /api/sessions/:id', async () => {
    const body = (await app.inject(`/api/sessions/${sessionId}`)).json();
    expectContract(SessionSnapshotBodySchema, body);
    expect(SessionSnapshotBodySchema.parse(body).session.sessionId).toBe(sessionId);
  });

  it('every error body', async () => {
    for (const url of ['/api/sessions/nope', '/api/sessions?limit=0', '/api/sessions?before=not-a-cursor', '/api/nothing-here']) {
      const response = await app.inject(url);
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expectContract(RestErrorSchema, response.json());
    }
  });

  it('the 401 of a server that needs a token', async () => {
    const guarded = await buildTestApp({ token: 'secret-token' });
    try {
      const response = await guarded.inject('/api/sessions');
      expect(response.statusCode).toBe(401);
      expectContract(RestErrorSchema, response.json());
      expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    } finally {
      await guarded.close();
    }
  });
});
