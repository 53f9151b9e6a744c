import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SessionError } from '../core/session-error.js';
import { sendRestError } from '../rest-error-reply.js';

/** The error handler of the /api scope: every failure becomes `{ code, message }`, internals are logged, not shown. */
export function restErrorHandler(error: FastifyError | SessionError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof SessionError) return sendRestError(reply, error.code, error.message);
  if ('validation' in error && error.validation) return sendRestError(reply, 'BAD_REQUEST', `Invalid request: ${error.message}.`);
  const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status < 500) return sendRestError(reply, 'BAD_REQUEST', error.message, status);
  request.log.error({ err: error }, 'a REST request failed');
  return sendRestError(reply, 'INTERNAL', 'The server failed to answer this request. It has been logged.', 500);
}
