import type { RestError, RestErrorCode } from '@interthought/protocol';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SessionError } from '../core/session-error.js';

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

export function sendRestError(reply: FastifyReply, code: RestErrorCode, message: string, status = STATUS_BY_CODE[code] ?? 400): FastifyReply {
  const body: RestError = { code, message };
  return reply.code(status).send(body);
}

/** The error handler of the /api scope: every failure becomes `{ code, message }`, internals are logged, not shown. */
export function restErrorHandler(error: FastifyError | SessionError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof SessionError) return sendRestError(reply, error.code, error.message);
  if ('validation' in error && error.validation) return sendRestError(reply, 'BAD_REQUEST', `Invalid request: ${error.message}.`);
  const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status < 500) return sendRestError(reply, 'BAD_REQUEST', error.message, status);
  request.log.error({ err: error }, 'a REST request failed');
  return sendRestError(reply, 'INTERNAL', 'The server failed to answer this request. It has been logged.', 500);
}
