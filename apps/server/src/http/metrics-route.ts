import type { FastifyInstance } from 'fastify';

/** `GET /api/metrics`: the server's metrics in the Prometheus text format (behind the token, when one is set). */
export async function metricsRoute(app: FastifyInstance): Promise<void> {
  app.get('/metrics', async (_request, reply) => reply.type('text/plain; version=0.0.4; charset=utf-8').send(app.metrics.render()));
}
