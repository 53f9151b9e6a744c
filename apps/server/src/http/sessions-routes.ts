import { SESSION_LIST_LIMITS } from '@interthought/protocol';
import type { FastifyInstance } from 'fastify';
import type { SessionPage } from '../core/persistence/event-store.js';
import { sendRestError } from '../rest-error-reply.js';

interface ListQuery {
  limit: number;
  before?: string;
}

/**
 * `GET /api/sessions` (newest first, paginated), `GET /api/sessions/:id` (the snapshot) and
 * `DELETE /api/sessions/:id` (204; its watchers get `session.deleted`): each only as far as the
 * requester may see or own the session (PROTOCOL.md §21.2).
 */
export async function sessionsRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: ListQuery }>(
    '/sessions',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: SESSION_LIST_LIMITS.max, default: SESSION_LIST_LIMITS.pageDefault },
            before: { type: 'string', minLength: 1, maxLength: 256 },
          },
        },
      },
    },
    async (request): Promise<SessionPage> => {
      const { limit, before } = request.query;
      const scope = app.authentication.gate.listScope(request);
      return app.sessions.list({ limit, ...(before === undefined ? {} : { before }), ...(scope === undefined ? {} : { scope }) });
    },
  );

  app.get<{ Params: { id: string } }>('/sessions/:id', async (request, reply) => {
    await app.authentication.gate.require(request, request.params.id, 'see');
    const snapshot = await app.sessions.snapshot(request.params.id);
    if (snapshot) return snapshot;
    return sendRestError(reply, 'SESSION_NOT_FOUND', `No session "${request.params.id}". List sessions with GET /api/sessions.`);
  });

  // A missing session throws SESSION_NOT_FOUND, which the scope's error handler answers with 404.
  app.delete<{ Params: { id: string } }>('/sessions/:id', async (request, reply) => {
    await app.authentication.gate.require(request, request.params.id, 'own');
    await app.sessions.delete(request.params.id);
    return reply.code(204).send();
  });
}
