import type { FastifyInstance } from 'fastify';
import { requireToken } from '../transport/origin-and-auth.js';
import { agentsRoute } from './agents-route.js';
import { exportRoutes } from './export-routes.js';
import { healthRoute } from './health-route.js';
import { metricsRoute } from './metrics-route.js';
import { protocolSchemaRoutes } from './protocol-schema-routes.js';
import { restErrorHandler } from './rest-error.js';
import { sessionsRoutes } from './sessions-routes.js';
import type { SessionCoreStats } from '../core/session-service.js';

export interface ApiOptions {
  /** When set, every route but /health requires it. */
  token: string | undefined;
  stats: () => SessionCoreStats;
}

/** The REST API, registered under /api. Errors are `{ code, message }` JSON. */
export async function apiRoutes(app: FastifyInstance, options: ApiOptions): Promise<void> {
  app.setErrorHandler(restErrorHandler);
  await app.register(healthRoute, { stats: options.stats });
  await app.register(async function guardedRoutes(guarded) {
    const { token } = options;
    if (token !== undefined) guarded.addHook('onRequest', requireToken(token));
    await guarded.register(agentsRoute);
    await guarded.register(sessionsRoutes);
    await guarded.register(exportRoutes);
    await guarded.register(protocolSchemaRoutes);
    await guarded.register(metricsRoute);
  });
}
