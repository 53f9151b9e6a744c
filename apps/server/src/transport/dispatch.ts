import { ERROR_CODES, SESSION_LIST_LIMITS, type ClientMessage } from '@interthought/protocol';
import { answer, withRequestId } from '../core/fanout/answer.js';
import type { ReplyTo } from '../core/fanout/peer.js';
import { SessionError } from '../core/session-error.js';
import type { SessionService } from '../core/session-service.js';
import { actorOf, makeShare } from '../sharing/make-share.js';
import { refreshSignIn } from './auth-refresh.js';
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
function ensureRoomForSubscription(connection: Connection, sessions: SessionService, sessionId: string | undefined, caps: ConnectionCaps): void {
  if (sessionId !== undefined && sessions.isSubscribed(connection, sessionId)) return;
  if (sessions.subscriptionCount(connection) < caps.maxSubscriptionsPerConnection) return;
  throw new SessionError(
    ERROR_CODES.LIMIT_EXCEEDED,
    `This connection already follows ${caps.maxSubscriptionsPerConnection} sessions: unsubscribe from one (session.unsubscribe) first.`,
  );
}

/** Requests that start an agent run: what the server computes for a client is bounded by the run-start budget. */
function ensureRunStartBudget(connection: Connection, context: Pick<FrameContext, 'runStarts'>): void {
  const quota = connection.quota;
  const verdict = quota === undefined ? context.runStarts.take(connection.id) : context.runStarts.take(quota.key, quota.runStartsPerMinute);
  if (verdict === 'ok') return;
  const whose = verdict === 'own' ? (quota?.whose ?? 'this connection') : 'this server, from all its clients together,';
  throw new SessionError(ERROR_CODES.RATE_LIMITED, `Too many agent runs started by ${whose} in the last minute; wait a little and try again. Nothing was changed.`);
}

/**
 * Create a session this connection follows (`session.create`, `session.fork`): within the
 * connection's cap of sessions created, which a refused creation does not use up.
 */
async function createFollowed(connection: Connection, sessions: SessionService, caps: ConnectionCaps, create: () => Promise<unknown>): Promise<void> {
  if (connection.sessionsCreated >= caps.maxSessionsPerConnection) {
    throw new SessionError(
      ERROR_CODES.LIMIT_EXCEEDED,
      `This connection already created ${caps.maxSessionsPerConnection} sessions: open a new connection to create more.`,
    );
  }
  ensureRoomForSubscription(connection, sessions, undefined, caps);
  connection.countCreatedSession();
  try {
    await create();
  } catch (error) {
    connection.uncountCreatedSession();
    throw error;
  }
}

/**
 * Carry out one valid client request. Refusals reject with a `SessionError` (from here, the gate or
 * the core); the caller turns it into an `error` frame. Each request on a session passes the gate
 * first (PROTOCOL.md §21.2). Direct answers go to `connection` only: the core sends those that must
 * precede the events they cause (`session.created`, `correction.accepted`) in the same turn that
 * queues them.
 */
export async function dispatch(
  message: ClientMessage,
  connection: Connection,
  context: Pick<FrameContext, 'sessions' | 'caps' | 'runStarts' | 'verifyToken' | 'gate' | 'links'>,
): Promise<void> {
  const { sessions, caps, gate } = context;
  const quota = connection.quota;
  const reply: ReplyTo = withRequestId({ peer: connection }, message.id);
  // How the log names this requester: the user, else the connection.
  const actor = actorOf(connection, connection.id);
  const named = actor.byName === undefined ? { by: actor.by } : { by: actor.by, byName: actor.byName };
  const ownedBy = gate.ownerFor(connection);
  switch (message.type) {
    case 'session.create':
      gate.requireCreator(connection);
      // The core answers `session.created` and subscribes this connection from seq 0 before any event.
      await createFollowed(connection, sessions, caps, () => {
        ensureRunStartBudget(connection, context);
        return sessions.create(
          { task: message.task, agent: message.agent, options: message.options, ...(quota === undefined ? {} : { quota }), ...(ownedBy === undefined ? {} : { ownedBy }) },
          reply,
        );
      });
      return;
    case 'session.subscribe':
      await gate.require(connection, message.sessionId, 'see');
      ensureRoomForSubscription(connection, sessions, message.sessionId, caps);
      await sessions.subscribe(message.sessionId, reply, message.afterSeq);
      return;
    case 'session.unsubscribe':
      await gate.require(connection, message.sessionId, 'see');
      await sessions.unsubscribe(message.sessionId, connection);
      answer(reply, { type: 'session.unsubscribed', sessionId: message.sessionId });
      return;
    case 'step.correct': {
      const { id: _id, type: _type, ...correction } = message;
      await gate.require(connection, message.sessionId, 'steer');
      ensureRunStartBudget(connection, context);
      await sessions.correct({ ...correction, ...named, ...(quota === undefined ? {} : { quota }) }, reply);
      return;
    }
    case 'session.pause':
      await gate.require(connection, message.sessionId, 'steer');
      await sessions.pause(message.sessionId, reply);
      return;
    case 'session.resume':
      await gate.require(connection, message.sessionId, 'steer');
      ensureRunStartBudget(connection, context);
      await sessions.resume(message.sessionId, reply);
      return;
    case 'session.cancel':
      await gate.require(connection, message.sessionId, 'steer');
      await sessions.cancel(message.sessionId, reply);
      return;
    case 'session.delete':
      await gate.require(connection, message.sessionId, 'own');
      // Every watcher, this connection included, gets `session.deleted`; the core drops the subscriptions.
      await sessions.delete(message.sessionId, reply);
      return;
    case 'sessions.watch': {
      // The core answers `sessions.watching`, holding list changes until the page is sent.
      const scope = gate.listScope(connection);
      await sessions.watchList(reply, message.limit ?? SESSION_LIST_LIMITS.default, ...(scope === undefined ? [] : [scope]));
      return;
    }
    case 'sessions.unwatch':
      sessions.unwatchList(connection);
      answer(reply, { type: 'sessions.unwatched' });
      return;
    case 'session.message': {
      await gate.require(connection, message.sessionId, 'steer');
      // A message starts a turn, now or once it reaches the chain.
      ensureRunStartBudget(connection, context);
      const { sessionId, text, mode } = message;
      await sessions.message({ sessionId, text, ...named, ...(mode === undefined ? {} : { mode }), ...(quota === undefined ? {} : { quota }) }, reply);
      return;
    }
    case 'session.fork':
      gate.requireCreator(connection);
      await gate.require(connection, message.sessionId, 'see');
      // A fork is a session this connection creates and follows, like session.create; a replay (`run`) starts a run, like it too.
      if (message.run === true) ensureRunStartBudget(connection, context);
      await createFollowed(connection, sessions, caps, () => {
        const { sessionId, stepId, agent, options, run } = message;
        return sessions.fork(
          {
            sessionId,
            stepId,
            ...(agent === undefined ? {} : { agent }),
            ...(options === undefined ? {} : { options }),
            ...(run === undefined ? {} : { run }),
            ...(quota === undefined ? {} : { quota }),
            ...(ownedBy === undefined ? {} : { ownedBy }),
          },
          reply,
        );
      });
      return;
    case 'tool.approve':
    case 'tool.reject': {
      await gate.require(connection, message.sessionId, 'steer');
      // A decision starts a run (the approved tool, or the agent going on after a refusal).
      ensureRunStartBudget(connection, context);
      const decision = { sessionId: message.sessionId, stepId: message.stepId, ...named, ...(quota === undefined ? {} : { quota }) };
      if (message.type === 'tool.approve') await sessions.approve(message.remember === undefined ? decision : { ...decision, remember: message.remember }, reply);
      else await sessions.reject(message.reason === undefined ? decision : { ...decision, reason: message.reason }, reply);
      return;
    }
    case 'approvals.forget':
      // Taking an approval back is a decision about the session's calls (PROTOCOL.md §25.3): who may decide may.
      await gate.require(connection, message.sessionId, 'steer');
      await sessions.forgetApprovals({ sessionId: message.sessionId, ...(message.tool === undefined ? {} : { tool: message.tool }), ...named }, reply);
      return;
    case 'input.provide': {
      // Who may answer is who may decide (PROTOCOL.md §25.2, §21.2): a viewer is refused.
      await gate.require(connection, message.sessionId, 'steer');
      // An answer starts a run: the agent goes on after it.
      ensureRunStartBudget(connection, context);
      await sessions.provideInput({ sessionId: message.sessionId, stepId: message.stepId, text: message.text, ...named, ...(quota === undefined ? {} : { quota }) }, reply);
      return;
    }
    case 'session.share': {
      await gate.require(connection, message.sessionId, 'own');
      const { sessionId, role, expiresInSec } = message;
      const made = await makeShare(sessions, context.links, { sessionId, role, expiresInSec, baseUrl: connection.baseUrl }, actor);
      answer(reply, { type: 'session.shared', ...made });
      return;
    }
    case 'session.unshare':
      await gate.require(connection, message.sessionId, 'own');
      await sessions.unshare({ sessionId: message.sessionId, shareId: message.shareId, ...named });
      answer(reply, { type: 'session.unshared', sessionId: message.sessionId, shareId: message.shareId });
      return;
    case 'auth.refresh':
      await refreshSignIn(message, connection, context.verifyToken);
      return;
    case 'subagent.cancel':
      // Who may stop one sub-agent is who may stop the session (PROTOCOL.md §24.6).
      await gate.require(connection, message.sessionId, 'steer');
      await sessions.cancelSubagent({ sessionId: message.sessionId, scope: message.scope }, reply);
      return;
    default:
      assertNever(message);
  }
}
