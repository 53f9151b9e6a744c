import { ERROR_CODES, FIELD_LIMITS, errorFrame, parseClientMessage, type ClientMessage } from '@interthought/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { RawData } from 'ws';
import { SessionError } from '../core/session-error.js';
import type { SessionService } from '../core/session-service.js';
import type { Connection } from './connection.js';
import { dispatch, type ConnectionCaps } from './dispatch.js';

/** Close code and reason for a client that keeps sending while rate limited. */
export const RATE_ABUSE_CLOSE = { code: 1008, reason: 'rate limit exceeded' } as const;

export interface FrameContext {
  sessions: SessionService;
  caps: ConnectionCaps;
  log: FastifyBaseLogger;
}

function asBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

/** The request id of a frame that will not be carried out, so the client can fail that request at once. */
/** The usable `id` of a refused frame, to echo as `requestId`: a bare JSON read, no schema work for a client being throttled. */
function requestIdOf(bytes: Uint8Array): string | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    const id = typeof value === 'object' && value !== null && Object.hasOwn(value, 'id') ? (value as { id: unknown }).id : undefined;
    return typeof id === 'string' && id.length >= 1 && id.length <= FIELD_LIMITS.requestIdMax ? id : undefined;
  } catch {
    return undefined;
  }
}

function runRequest(message: ClientMessage, connection: Connection, context: FrameContext): void {
  try {
    dispatch(message, connection, context.sessions, context.caps);
  } catch (error) {
    if (error instanceof SessionError) {
      connection.sendMessage(errorFrame(error.code, error.message, message.id, error.details));
      return;
    }
    context.log.error({ err: error, type: message.type, connectionId: connection.id }, 'a client request failed unexpectedly');
    connection.sendMessage(errorFrame(ERROR_CODES.INTERNAL, 'The server failed to carry out this request. It has been logged; try again.', message.id));
  }
}

/**
 * One inbound frame: rate limit → reject binary → parse and validate → dispatch. Every bad frame
 * is answered with an `error` frame and the connection stays open; nothing here throws.
 */
export function handleFrame(connection: Connection, data: RawData, isBinary: boolean, context: FrameContext): void {
  if (!connection.open) return;
  const bytes = asBytes(data);
  const verdict = connection.limiter.check();
  if (verdict === 'close') {
    context.log.warn({ connectionId: connection.id }, 'closed a connection that kept exceeding the rate limit');
    connection.socket.close(RATE_ABUSE_CLOSE.code, RATE_ABUSE_CLOSE.reason);
    return;
  }
  if (verdict === 'reject') {
    const requestId = isBinary ? undefined : requestIdOf(bytes);
    connection.sendMessage(errorFrame(ERROR_CODES.RATE_LIMITED, 'Too many requests: slow down. This request was not carried out.', requestId));
    return;
  }
  if (isBinary) {
    connection.sendMessage(errorFrame(ERROR_CODES.BAD_JSON, 'binary frames are not accepted: send JSON text'));
    return;
  }
  const parsed = parseClientMessage(bytes);
  if (!parsed.ok) {
    connection.sendMessage(parsed.error);
    return;
  }
  runRequest(parsed.message, connection, context);
}
