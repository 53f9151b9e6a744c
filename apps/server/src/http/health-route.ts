import type { Health } from '@interthought/protocol';
import type { FastifyInstance } from 'fastify';
import { SERVER_VERSION } from '../config.js';

/** `GET /api/health`: always public (no token), for load balancers and uptime checks. */
export async function healthRoute(app: FastifyInstance, options: { activeSessions: () => number }): Promise<void> {
  app.get('/health', async (): Promise<Health> => ({
    ok: true,
    version: SERVER_VERSION,
    uptime: Math.round(process.uptime()),
    sessions: options.activeSessions(),
  }));
}
