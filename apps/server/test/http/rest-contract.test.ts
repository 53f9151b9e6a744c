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
    sessionId = await client.createSession('What is 6 * 7?');
    await client.untilFinished(sessionId);
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

  it('GET /api/sessions, with each session summary', async () => {
    const page = (await app.inject('/api/sessions?limit=1')).json() as { sessions: unknown[] };
    expectContract(SessionPageSchema, page);
    for (const info of page.sessions) expectContract(SessionInfoSchema, info);
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
});
