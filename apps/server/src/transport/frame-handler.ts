import { ERROR_CODES, errorFrame, parseClientMessage, usableRequestId, type ClientMessage, type ErrorFrame } from '@interthought/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Identity } from '../auth/identity.js';
import type { RawData } from 'ws';
import { withRequestId } from '../core/fanout/answer.js';
import { SessionError } from '../core/session-error.js';
import type { SessionService } from '../core/session-service.js';
import type { TransportMetrics } from '../metrics/server-metrics.js';
import type { RunStartBudget } from './address-quotas.js';
import type { BriefWarnings } from './brief-warnings.js';
import type { Connection } from './connection.js';
import { dispatch, type ConnectionCaps } from './dispatch.js';
import type { SessionGate } from '../sharing/session-gate.js';
import type { ShareLinks } from '../sharing/share-links.js';

/** Close code and reason for a client that keeps sending while rate limited. */
export const RATE_ABUSE_CLOSE = { code: 1008, reason: 'rate limit exceeded' } as const;

/** What every connection's frames are handled with (one object for all connections). */
export interface FrameContext {
  sessions: SessionService;
  caps: ConnectionCaps;
  /** Agent runs started per address and per server. */
  runStarts: RunStartBudget;
  /** For failures of the server itself (with stacks). */
  log: FastifyBaseLogger;
  /** For what clients cause (brief, rate-limited). */
  warnings: BriefWarnings;
  metrics: TransportMetrics;
  /** Checks the token of an `auth.refresh` (INTERTHOUGHT_AUTH=jwt only). */
  verifyToken: ((token: string) => Promise<Identity>) | undefined;
  /** Who may do what with which session (PROTOCOL.md §21.2). */
  gate: SessionGate;
  /** Share links: signed with the server's key. */
  links: ShareLinks;
}

function asBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

/** The usable `id` of a refused frame, to echo as `requestId`: a bare JSON read, no schema work for a client being throttled. */
function requestIdOf(bytes: Uint8Array): string | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    return usableRequestId(typeof value === 'object' && value !== null && Object.hasOwn(value, 'id') ? (value as { id: unknown }).id : undefined);
  } catch {
    return undefined;
  }
}

/** Answer with an `error` frame, counted by its code. */
function refuse(connection: Connection, frame: ErrorFrame, context: FrameContext): void {
  context.metrics.requestRefused(frame.code);
  connection.sendMessage(frame);
}

async function runRequest(message: ClientMessage, connection: Connection, context: FrameContext): Promise<void> {
  context.metrics.requestReceived(message.type);
  try {
    await dispatch(message, connection, context);
  } catch (error) {
    if (error instanceof SessionError) {
      refuse(connection, withRequestId(errorFrame(error.code, error.message, undefined, error.details), message.id), context);
      return;
    }
    context.log.error({ err: error, type: message.type, connectionId: connection.id }, 'a client request failed unexpectedly');
    refuse(connection, withRequestId(errorFrame(ERROR_CODES.INTERNAL, 'The server failed to carry out this request. It has been logged; try again.'), message.id), context);
  }
}

/**
 * One inbound frame: rate limit → reject binary → parse and validate → dispatch. Every bad frame
 * is answered with an `error` frame and the connection stays open; nothing here throws.
 */
export function handleFrame(connection: Connection, data: RawData, isBinary: boolean, context: FrameContext): void {
  if (!connection.open || connection.closing) return;
  const bytes = asBytes(data);
  const verdict = connection.limiter.check();
  if (verdict === 'close') {
    context.warnings.warn('rate-limit-close', { connectionId: connection.id }, 'closed a connection that kept exceeding the rate limit (1008)');
    context.metrics.rateLimitClosed();
    // After the answers to the frames before it; frames after it are not read.
    connection.closeInTurn(RATE_ABUSE_CLOSE.code, RATE_ABUSE_CLOSE.reason);
    return;
  }
  // One request at a time per connection, answered in the order the frames came: a pause sent
  // before a resume is applied first, and a refusal never overtakes an earlier request's answer.
  if (verdict === 'reject') {
    const requestId = isBinary ? undefined : requestIdOf(bytes);
    const frame = withRequestId(errorFrame(ERROR_CODES.RATE_LIMITED, 'Too many requests: slow down. This request was not carried out.'), requestId);
    connection.inTurn(() => refuse(connection, frame, context));
    return;
  }
  if (isBinary) {
    connection.inTurn(() => refuse(connection, errorFrame(ERROR_CODES.BAD_JSON, 'binary frames are not accepted: send JSON text'), context));
    return;
  }
  const parsed = parseClientMessage(bytes);
  if (!parsed.ok) {
    connection.inTurn(() => refuse(connection, parsed.error, context));
    return;
  }
  connection.inTurn(() => runRequest(parsed.message, connection, context));
}
