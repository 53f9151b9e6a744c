import type { Health } from '@interthought/protocol';
import type { FastifyInstance } from 'fastify';
import { SERVER_VERSION } from '../config/server-package.js';
import type { SessionCoreStats } from '../core/session-service.js';
import type { StoreHealthProbe } from '../core/persistence/store-health.js';

/** `GET /api/health`: always public (no token), for load balancers and uptime checks. */
export async function healthRoute(app: FastifyInstance, options: { stats: () => SessionCoreStats; store: StoreHealthProbe | undefined }): Promise<void> {
  app.get('/health', async (): Promise<Health> => {
    const stats = options.stats();
    const health: Health = { ok: true, version: SERVER_VERSION, uptime: Math.round(process.uptime()), sessions: stats.activeSessions };
    if (stats.cluster !== undefined) health.cluster = stats.cluster;
    if (options.store !== undefined) health.store = await options.store.storeHealth();
    return health;
  });
}
