import { FIELD_LIMITS, PROTOCOL_VERSION, type Hello, type ServerLimits } from '@interthought/protocol';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import type { WebSocket } from 'ws';
import { SERVER_VERSION, type Config } from '../config.js';
import { Connection } from './connection.js';
import { handleFrame, type FrameContext } from './frame-handler.js';
import type { TransportMetrics } from '../metrics/server-metrics.js';
import { Heartbeat } from './heartbeat.js';
import { isLoopbackHost, requireAllowedOrigin, requireToken } from './origin-and-auth.js';

export const WS_PATH = '/ws';
export const CAPABILITIES = ['corrections', 'replay', 'pause', 'branches', 'delete', 'coalesced-deltas', 'session-list'];

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
  };
}

/**
 * The WebSocket endpoint. Origin and token are checked in `onRequest`, so a refused client gets
 * a plain HTTP 403/401 and the upgrade never happens. Needs the `sessions` and `metrics` decorations.
 */
export async function wsRoute(app: FastifyInstance, options: { config: Config }): Promise<void> {
  const { config } = options;
  const metrics: TransportMetrics = app.metrics;
  const heartbeat = new Heartbeat(config.heartbeatMs);
  app.addHook('onClose', async () => heartbeat.stop());

  const guards: onRequestAsyncHookHandler[] = [requireAllowedOrigin(config.allowedOrigins, isLoopbackHost(config.host))];
  if (config.token !== undefined) guards.push(requireToken(config.token));

  const hello = (connectionId: string): Hello => ({
    type: 'hello',
    protocol: PROTOCOL_VERSION,
    serverVersion: SERVER_VERSION,
    connectionId,
    capabilities: CAPABILITIES,
    limits: serverLimits(config),
  });

  app.get(WS_PATH, { websocket: true, onRequest: guards }, (socket: WebSocket, request) => {
    const connection: Connection = new Connection(
      socket,
      { ratePerSec: config.ratePerSec, burst: config.rateBurst },
      {
        caps: { softBytes: config.softBufferBytes, hardBytes: config.hardBufferBytes, burstBytes: config.burstBudgetBytes },
        // Never called while the connection is being built, so `log` (just below) exists by then.
        onSlowConsumer: (bufferedBytes) => {
          metrics.slowConsumerClosed();
          log.warn({ bufferedBytes }, 'closed a slow consumer (4008): it will resume with afterSeq');
        },
      },
    );
    const log = request.log.child({ connectionId: connection.id });
    const context: FrameContext = {
      sessions: app.sessions,
      caps: { maxSessionsPerConnection: config.maxSessionsPerConnection, maxSubscriptionsPerConnection: config.maxSubscriptionsPerConnection },
      log,
      metrics,
    };
    // Attached before anything else so no frame can arrive unheard.
    socket.on('message', (data, isBinary) => handleFrame(connection, data, isBinary, context));
    socket.on('close', (code) => {
      metrics.connectionClosed();
      heartbeat.delete(connection);
      connection.dispose();
      try {
        app.sessions.detach(connection);
      } catch (error) {
        log.error({ err: error }, 'detaching a closed connection failed');
      }
      log.debug({ code }, 'websocket closed');
    });
    metrics.connectionOpened();
    heartbeat.add(connection);
    connection.sendMessage(hello(connection.id));
    log.debug('websocket opened');
  });
}
