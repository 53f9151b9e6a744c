import { CAPABILITIES, FIELD_LIMITS, PROTOCOL_VERSION, type Hello, type ServerLimits } from '@interthought/protocol';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import type { WebSocket } from 'ws';
import { SERVER_VERSION, type Config } from '../config/index.js';
import { Connection, type BackpressureOptions } from './connection.js';
import { handleFrame, type FrameContext } from './frame-handler.js';
import type { TransportMetrics } from '../metrics/server-metrics.js';
import { Heartbeat } from './heartbeat.js';
import { releaseUpgradeLeftovers } from './upgrade-leftovers.js';
import { sendRestError } from '../rest-error-reply.js';
import { ConnectionsPerAddress, RunStartBudget, addressKey } from './address-quotas.js';
import type { Identity } from '../auth/identity.js';
import type { Quota } from '../core/commands/quota.js';
import { baseUrlOf } from '../sharing/make-share.js';
import { ShareRevocations } from '../sharing/share-revocations.js';
import type { BriefWarnings } from './brief-warnings.js';
import { handleSocketError } from './shutdown.js';

export const WS_PATH = '/ws';

/** Close code and reason for a socket over its address's cap that slipped past the upgrade check. */
export const TOO_MANY_CONNECTIONS_CLOSE = { code: 1008, reason: 'too many connections from this address' } as const;

/** The limits a connection is held to, as announced in `hello.limits`. */
export function serverLimits(config: Config): ServerLimits {
  return {
    maxFrameBytes: config.maxFrameBytes,
    maxTaskChars: FIELD_LIMITS.taskMax,
    maxCorrectionChars: FIELD_LIMITS.correctionMax,
    maxSessionsPerConnection: config.maxSessionsPerConnection,
    maxSubscriptionsPerConnection: config.maxSubscriptionsPerConnection,
    requestsPerSecond: config.ratePerSec,
    requestBurst: config.rateBurst,
    maxSubagentDepth: config.maxSubagentDepth,
  };
}

/**
 * The WebSocket endpoint. Origin and token are checked in `onRequest`, so a refused client gets
 * a plain HTTP 403/401 and the upgrade never happens. Needs the `sessions`, `metrics` and
 * `authentication` decorations.
 */
export async function wsRoute(app: FastifyInstance, options: { config: Config; warnings: BriefWarnings }): Promise<void> {
  const { config } = options;
  const metrics: TransportMetrics = app.metrics;
  const heartbeat = new Heartbeat(config.heartbeatMs);
  app.addHook('onClose', async () => heartbeat.stop());

  const connections = new ConnectionsPerAddress(config.maxConnectionsPerAddress);
  // Connections opened with a share link end with the link, whatever they follow.
  const revocations = new ShareRevocations(app.sessions, (context, error) => app.log.error({ err: error }, context));
  const warnings = options.warnings;
  // Host and Origin are checked for every route by the app's access policy; the upgrade adds the
  // token or identity (INTERTHOUGHT_AUTH, which sets `request.user`), a share link's grant
  // (`request.share`) and the per-address cap.
  const guards: onRequestAsyncHookHandler[] = [app.authentication.guard];
  guards.push(async function checkAddressRoom(request, reply) {
    if (connections.hasRoom(addressKey(request.ip))) return undefined;
    metrics.requestRefused('LIMIT_EXCEEDED');
    warnings.warn('connections-per-address', { remoteAddress: request.ip }, 'refused a WebSocket: its address has too many open');
    return sendRestError(
      reply,
      'LIMIT_EXCEEDED',
      `This address already has ${config.maxConnectionsPerAddress} WebSockets open: close one (one connection serves every session).`,
    );
  });
  // One context for every connection: the per-connection state lives in `Connection`.
  const context: FrameContext = {
    sessions: app.sessions,
    caps: { maxSessionsPerConnection: config.maxSessionsPerConnection, maxSubscriptionsPerConnection: config.maxSubscriptionsPerConnection },
    runStarts: new RunStartBudget(config.runStartsPerMinutePerAddress, config.runStartsPerMinute),
    log: app.log,
    warnings,
    metrics,
    verifyToken: app.authentication.verifyToken,
    gate: app.authentication.gate,
    links: app.authentication.links,
  };

  // Every capability of this protocol version: the server implements them all.
  const capabilities = [...CAPABILITIES];
  const hello = (connection: Connection): Hello => ({
    type: 'hello',
    protocol: PROTOCOL_VERSION,
    serverVersion: SERVER_VERSION,
    connectionId: connection.id,
    capabilities,
    limits: serverLimits(config),
    ...(connection.user === undefined ? {} : { user: { id: connection.user.id, name: connection.user.name, admin: connection.user.admin } }),
    ...(connection.share === undefined ? {} : { share: connection.share }),
  });
  const quotaOf = (user: Identity | undefined, address: string): Quota =>
    user === undefined
      ? { key: address, maxActiveSessions: config.maxActiveSessionsPerAddress, runStartsPerMinute: config.runStartsPerMinutePerAddress, whose: 'your address' }
      : { key: `user:${user.id}`, maxActiveSessions: config.maxActiveSessionsPerUser, runStartsPerMinute: config.runStartsPerMinutePerUser, whose: 'your account' };

  // One object each for every connection, not one per connection.
  const rate = { ratePerSec: config.ratePerSec, burst: config.rateBurst };
  const backpressure: BackpressureOptions = {
    caps: { softBytes: config.softBufferBytes, hardBytes: config.hardBufferBytes, burstBytes: config.burstBudgetBytes },
    onSlowConsumer: (connectionId, bufferedBytes) => {
      metrics.slowConsumerClosed();
      warnings.warn('slow-consumer', { connectionId, bufferedBytes }, 'closed a slow consumer (4008): it will resume with afterSeq');
    },
  };
  // Takes over from @fastify/websocket's per-socket listener (which holds the request): as the app's errorHandler does.
  // One listener for every socket (no closure per connection): the upgrade's own listener, which holds the request, is replaced by it.
  function onSocketError(this: WebSocket, error: Error): void {
    handleSocketError(warnings, this, error);
  }

  app.get(WS_PATH, { websocket: true, onRequest: guards }, (socket: WebSocket, request) => {
    const owner = addressKey(request.ip);
    // Upgrades that passed the check together may overshoot it: the socket is counted only here.
    if (!connections.tryOpen(owner)) {
      socket.close(TOO_MANY_CONNECTIONS_CLOSE.code, TOO_MANY_CONNECTIONS_CLOSE.reason);
      return;
    }
    const connection = new Connection(socket, {
      rate,
      backpressure,
      quota: quotaOf(request.user, owner),
      user: request.user,
      share: request.share,
      baseUrl: baseUrlOf(config.publicUrl, request),
    });
    if (request.share !== undefined) revocations.add(connection);
    releaseUpgradeLeftovers(socket, onSocketError);
    // Attached before anything else so no frame can arrive unheard.
    socket.on('message', (data, isBinary) => handleFrame(connection, data, isBinary, context));
    socket.on('close', (code) => {
      connections.closed(owner);
      revocations.remove(connection);
      metrics.connectionClosed();
      heartbeat.delete(connection);
      connection.dispose();
      try {
        app.sessions.detach(connection);
      } catch (error) {
        app.log.error({ err: error, connectionId: connection.id }, 'detaching a closed connection failed');
      }
      app.log.debug({ code, connectionId: connection.id }, 'websocket closed');
    });
    metrics.connectionOpened();
    heartbeat.add(connection);
    connection.sendMessage(hello(connection));
    app.log.debug({ connectionId: connection.id }, 'websocket opened');
  });
}
