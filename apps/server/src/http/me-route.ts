import type { FastifyInstance } from 'fastify';
import type { Me } from '@interthought/protocol';

/**
 * `GET /api/me` (PROTOCOL.md §21.1): who the request's credentials say it is. It needs no sign-in
 * and says why there is none, so the web UI can explain what is missing instead of failing.
 */
export async function meRoute(app: FastifyInstance): Promise<void> {
  app.get('/me', async (request, reply): Promise<Me> => {
    // Per user: never cached by the browser or a proxy.
    reply.header('cache-control', 'no-store');
    return app.authentication.describe(request);
  });
}
