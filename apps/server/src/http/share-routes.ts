import type { FastifyInstance } from 'fastify';
import { ShareCreateBodySchema, issuesToDetails, type ShareList } from '@interthought/protocol';
import { SessionError } from '../core/session-error.js';
import { actorOf, baseUrlOf, makeShare } from '../sharing/make-share.js';
import type { Config } from '../config/index.js';

/**
 * Share links over REST (PROTOCOL.md §18, §21.3), as `session.share` / `session.unshare` on the
 * WebSocket: `GET|POST /api/sessions/:id/shares`, `DELETE /api/sessions/:id/shares/:shareId`.
 * Owners and admins only.
 */
export async function shareRoutes(app: FastifyInstance, options: { config: Pick<Config, 'publicUrl'> }): Promise<void> {
  const { gate, links } = app.authentication;

  app.get<{ Params: { id: string } }>('/sessions/:id/shares', async (request): Promise<ShareList> => {
    await gate.require(request, request.params.id, 'own');
    const facts = await app.sessions.accessFacts(request.params.id);
    return { shares: [...(facts?.shares ?? [])] };
  });

  app.post<{ Params: { id: string } }>('/sessions/:id/shares', async (request, reply) => {
    const body = ShareCreateBodySchema.safeParse(request.body ?? {});
    if (!body.success) throw new SessionError('BAD_FRAME', 'Send { "role": "viewer" | "editor", "expiresInSec"?: 60…31536000 }.', issuesToDetails(body.error.issues));
    const sessionId = request.params.id;
    await gate.require(request, sessionId, 'own');
    const made = await makeShare(
      app.sessions,
      links,
      { sessionId, role: body.data.role, expiresInSec: body.data.expiresInSec, baseUrl: baseUrlOf(options.config.publicUrl, request) },
      actorOf(request, 'rest'),
    );
    return reply.code(201).send(made);
  });

  app.delete<{ Params: { id: string; shareId: string } }>('/sessions/:id/shares/:shareId', async (request, reply) => {
    const { id: sessionId, shareId } = request.params;
    await gate.require(request, sessionId, 'own');
    const actor = actorOf(request, 'rest');
    await app.sessions.unshare({ sessionId, shareId, by: actor.by, ...(actor.byName === undefined ? {} : { byName: actor.byName }) });
    return reply.code(204).send();
  });
}
