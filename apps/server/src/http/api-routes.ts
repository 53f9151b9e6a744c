import type { FastifyInstance } from 'fastify';
import { agentsRoute } from './agents-route.js';
import { correctionsExportRoute } from './corrections-export-route.js';
import { correctionsRoute } from './corrections-route.js';
import { exportRoutes } from './export-routes.js';
import { meRoute } from './me-route.js';
import { healthRoute } from './health-route.js';
import { metricsRoute } from './metrics-route.js';
import { protocolSchemaRoutes } from './protocol-schema-routes.js';
import { restErrorHandler } from './rest-error-handler.js';
import { sessionsRoutes } from './sessions-routes.js';
import { shareRoutes } from './share-routes.js';
import { toolsRoute } from './tools-route.js';
import { agUiRoute } from './ag-ui/ag-ui-route.js';
import type { SessionCoreStats } from '../core/session-service.js';
import type { StoreHealthProbe } from '../core/persistence/store-health.js';

export interface ApiOptions {
  stats: () => SessionCoreStats;
  /** The store's health probe, when it has one (Postgres): reported by /api/health and /api/metrics. */
  store: StoreHealthProbe | undefined;
}

/** The REST API, registered under /api. Errors are `{ code, message }` JSON. */
export async function apiRoutes(app: FastifyInstance, options: ApiOptions): Promise<void> {
  app.setErrorHandler(restErrorHandler);
  await app.register(healthRoute, { stats: options.stats, store: options.store });
  // Answers signed in or not: it says what is missing (PROTOCOL.md §21.1).
  await app.register(meRoute);
  await app.register(async function guardedRoutes(guarded) {
    // The token or the user's identity (INTERTHOUGHT_AUTH), or a share link, checked by the app's authentication.
    guarded.addHook('onRequest', app.authentication.guard);
    await guarded.register(agentsRoute);
    await guarded.register(toolsRoute);
    await guarded.register(sessionsRoutes);
    await guarded.register(exportRoutes);
    await guarded.register(correctionsRoute);
    await guarded.register(correctionsExportRoute);
    await guarded.register(shareRoutes, { config: app.config });
    await guarded.register(protocolSchemaRoutes);
    await guarded.register(metricsRoute, { store: options.store });
    await guarded.register(agUiRoute);
  });
}
