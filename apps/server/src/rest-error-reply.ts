import type { RestError, RestErrorCode } from '@interthought/protocol';
import type { FastifyReply } from 'fastify';

const STATUS_BY_CODE: Partial<Record<RestErrorCode, number>> = {
  BAD_REQUEST: 400,
  BAD_CURSOR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  STEP_NOT_FOUND: 404,
  AGENT_NOT_FOUND: 404,
  LIMIT_EXCEEDED: 429,
  RATE_LIMITED: 429,
};

/** Answer with a REST error body `{ code, message }` and the HTTP status its code means: REST routes and refused WebSocket upgrades alike. */
export function sendRestError(reply: FastifyReply, code: RestErrorCode, message: string, status = STATUS_BY_CODE[code] ?? 400): FastifyReply {
  const body: RestError = { code, message };
  return reply.code(status).send(body);
}
