import type { FastifyInstance } from 'fastify';
import type { StoreHealthProbe } from '../core/persistence/store-health.js';
import { renderStoreMetrics } from '../metrics/store-metrics.js';

/** `GET /api/metrics`: the server's metrics in the Prometheus text format (behind the token, when one is set), with the store's when it reports them. */
export async function metricsRoute(app: FastifyInstance, options: { store: StoreHealthProbe | undefined }): Promise<void> {
  app.get('/metrics', async (_request, reply) => {
    const store = options.store === undefined ? '' : renderStoreMetrics(await options.store.storeHealth());
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(app.metrics.render() + store);
  });
}
