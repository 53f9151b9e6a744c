import { AGENT_FIELD_LIMITS, AGENT_WIRE_PATH, type AgentLimits } from '@interthought/protocol';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { SERVER_VERSION, type Config } from '../../config/index.js';
import { WorkerConnection } from '../../agents/remote/index.js';
import { sendRestError } from '../../rest-error-reply.js';
import type { BriefWarnings } from '../brief-warnings.js';
import { Heartbeat } from '../heartbeat.js';
import { handleSocketError } from '../shutdown.js';
import { releaseUpgradeLeftovers } from '../upgrade-leftovers.js';
import { BearerTokens } from './bearer-tokens.js';

/** The limits every worker connection is held to, as `hello.limits` announces them (PROTOCOL.md Part II §A8). */
export function agentLimits(config: Config): AgentLimits {
  return {
    // Never above the socket's own limit, past which ws closes the connection (1009).
    maxFrameBytes: Math.min(config.agentMaxFrameBytes, config.maxFrameBytes),
    maxStepChars: config.agentMaxStepChars,
    maxRunsPerWorker: config.agentMaxRunsPerWorker,
    maxAgentsPerWorker: AGENT_FIELD_LIMITS.agentsPerWorkerMax,
    framesPerSecond: config.agentFramesPerSecond,
    frameBurst: config.agentFrameBurst,
    maxQueuedFramesPerRun: config.agentMaxQueuedFrames,
    heartbeatMs: config.agentHeartbeatMs,
  };
}

/**
 * `/ws/agents`, registered only while INTERTHOUGHT_AGENT_TOKENS is set: workers connect with a
 * bearer token (401 before the upgrade otherwise) and serve agents that then sit in the server's
 * agent registry beside the in-process ones. Needs the `agents` and `workers` decorations.
 */
export async function agentWorkersRoute(app: FastifyInstance, options: { config: Config; tokens: readonly string[]; warnings: BriefWarnings }): Promise<void> {
  const { config, warnings } = options;
  const tokens = new BearerTokens(options.tokens);
  const pool = app.workers;
  const limits = agentLimits(config);
  const heartbeat = new Heartbeat(limits.heartbeatMs);
  app.addHook('onClose', async () => heartbeat.stop());
  const report = (context: string, fields: Record<string, unknown>, error: unknown): void => app.log.error({ err: error, ...fields }, context);
  function onSocketError(this: WebSocket, error: Error): void {
    handleSocketError(warnings, this, error);
  }

  app.get(
    AGENT_WIRE_PATH,
    {
      websocket: true,
      onRequest: async (request, reply) => {
        if (tokens.accepts(request.headers.authorization)) return undefined;
        warnings.warn('agent-worker-token', { remoteAddress: request.ip }, 'refused an agent worker: missing or wrong token (401)');
        return sendRestError(reply, 'UNAUTHORIZED', 'An agent worker connects with the header "Authorization: Bearer <token>", one of INTERTHOUGHT_AGENT_TOKENS.');
      },
    },
    (socket: WebSocket) => {
      const worker = new WorkerConnection(socket, { limits, serverVersion: SERVER_VERSION, pool, report });
      releaseUpgradeLeftovers(socket, onSocketError);
      // Attached before anything else so no frame can arrive unheard.
      socket.on('message', (data, isBinary) => worker.handle(data, isBinary));
      socket.on('close', (code) => {
        heartbeat.delete(worker);
        worker.closed();
        app.log.debug({ code, workerId: worker.id }, 'agent worker left');
      });
      heartbeat.add(worker);
      worker.hello();
      app.log.debug({ workerId: worker.id }, 'agent worker connected');
    },
  );
}
