import { ERROR_CODES, SESSION_LIST_LIMITS, type ClientMessage } from '@interthought/protocol';
import { SessionError } from '../core/session-error.js';
import type { Connection } from './connection.js';
import type { FrameContext } from './frame-handler.js';

/** The per-connection caps dispatch enforces (the rest are in the schema or the core). */
export interface ConnectionCaps {
  maxSessionsPerConnection: number;
  maxSubscriptionsPerConnection: number;
}

function assertNever(value: never): never {
  throw new Error(`Unhandled client message: ${JSON.stringify(value)}`);
}

/** A new subscription must fit under the cap; renewing one this connection already holds always does. */
function ensureRoomForSubscription(connection: Connection, sessionId: string | undefined, caps: ConnectionCaps): void {
  if (sessionId !== undefined && connection.subscriptions.has(sessionId)) return;
  if (connection.subscriptions.size < caps.maxSubscriptionsPerConnection) return;
  throw new SessionError(
    ERROR_CODES.LIMIT_EXCEEDED,
    `This connection already follows ${caps.maxSubscriptionsPerConnection} sessions: unsubscribe from one (session.unsubscribe) first.`,
  );
}

/** Requests that start an agent run: what the server computes for a client is bounded by the run-start budget. */
function ensureRunStartBudget(connection: Connection, context: Pick<FrameContext, 'runStarts'>): void {
  const verdict = context.runStarts.take(connection.owner ?? connection.id);
  if (verdict === 'ok') return;
  const whose = verdict === 'address' ? 'your address' : 'this server, from all its clients together,';
  throw new SessionError(ERROR_CODES.RATE_LIMITED, `Too many agent runs started by ${whose} in the last minute; wait a little and try again. Nothing was changed.`);
}

/**
 * Carry out one valid client request. Refusals throw a `SessionError` (from here or the core);
 * the caller turns it into an `error` frame. Direct answers go to `connection` only.
 */
export function dispatch(message: ClientMessage, connection: Connection, context: Pick<FrameContext, 'sessions' | 'caps' | 'runStarts'>): void {
  const { sessions, caps } = context;
  const owner = connection.owner;
  const requestId = message.id;
  switch (message.type) {
    case 'session.create': {
      if (connection.sessionsCreated >= caps.maxSessionsPerConnection) {
        throw new SessionError(
          ERROR_CODES.LIMIT_EXCEEDED,
          `This connection already created ${caps.maxSessionsPerConnection} sessions: open a new connection to create more.`,
        );
      }
      ensureRoomForSubscription(connection, undefined, caps);
      ensureRunStartBudget(connection, context);
      const session = sessions.create({ task: message.task, agent: message.agent, options: message.options, ...(owner === undefined ? {} : { owner }) });
      connection.sessionsCreated += 1;
      connection.sendMessage({ type: 'session.created', requestId, session });
      // The agent starts on a later tick, so subscribing from seq 0 now misses nothing.
      sessions.subscribe(session.sessionId, { peer: connection }, 0);
      connection.subscriptions.add(session.sessionId);
      return;
    }
    case 'session.subscribe':
      ensureRoomForSubscription(connection, message.sessionId, caps);
      sessions.subscribe(message.sessionId, { peer: connection, requestId }, message.afterSeq);
      connection.subscriptions.add(message.sessionId);
      return;
    case 'session.unsubscribe':
      sessions.unsubscribe(message.sessionId, connection);
      connection.subscriptions.delete(message.sessionId);
      connection.sendMessage({ type: 'session.unsubscribed', requestId, sessionId: message.sessionId });
      return;
    case 'step.correct': {
      const { id: _id, type: _type, ...correction } = message;
      ensureRunStartBudget(connection, context);
      const result = sessions.correct({ ...correction, by: connection.id, ...(owner === undefined ? {} : { owner }) });
      // Sent now, synchronously: the core sends the correction's events once their batch is
      // committed (a microtask at the soonest), so this answer always comes first.
      connection.sendMessage({ type: 'correction.accepted', requestId, ...result });
      return;
    }
    case 'session.pause':
      sessions.pause(message.sessionId, { peer: connection, requestId });
      return;
    case 'session.resume':
      ensureRunStartBudget(connection, context);
      sessions.resume(message.sessionId, { peer: connection, requestId });
      return;
    case 'session.cancel':
      sessions.cancel(message.sessionId, { peer: connection, requestId });
      return;
    case 'session.delete':
      // Every watcher, this connection included, is told and forgets it through `Peer.forget`.
      sessions.delete(message.sessionId, { peer: connection, requestId });
      return;
    case 'sessions.watch': {
      // Registered and answered in one synchronous step: no change can fall between the list and the pushes.
      const list = sessions.watchList(connection, message.limit ?? SESSION_LIST_LIMITS.default);
      connection.sendMessage({ type: 'sessions.watching', requestId, sessions: list });
      return;
    }
    case 'sessions.unwatch':
      sessions.unwatchList(connection);
      connection.sendMessage({ type: 'sessions.unwatched', requestId });
      return;
    default:
      assertNever(message);
  }
}
