import type { FastifyInstance } from 'fastify';
import { isBadCorrectionQuery, parsePageQuery } from '../corrections/correction-request.js';
import { visibilityOf } from '../corrections/reader-visibility.js';
import { sendRestError } from '../rest-error-reply.js';

/** `GET /api/corrections`: the corrections the requester may see, newest first, paged and filtered (PROTOCOL.md §26.2). */
export async function correctionsRoute(app: FastifyInstance): Promise<void> {
  app.get('/corrections', async (request, reply) => {
    try {
      const { filter, limit, before } = parsePageQuery(request.query);
      const visibility = await visibilityOf(request, app.authentication.gate);
      return await app.corrections.page({ filter, visibility, limit, before });
    } catch (error) {
      if (isBadCorrectionQuery(error)) return sendRestError(reply, 'BAD_REQUEST', error.message);
      throw error;
    }
  });
}
