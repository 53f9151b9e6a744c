import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { AgentRegistry } from '@interthought/agent';
import { catalogAgents } from './agents/catalog/index.js';
import type { Config } from './config/index.js';
import type { EventStore } from './core/persistence/event-store.js';
import { MemoryEventStore } from './store/memory-event-store.js';
import { storeHealthProbeOf, type StoreHealthProbe } from './core/persistence/store-health.js';
import type { ClusterLog } from './cluster/cluster-log.js';
import { startSessionManager } from './core/session-manager.js';
import { startTurnSpan } from './tracing/turn-span.js';
import { startClusterNode } from './cluster/cluster-node.js';
import type { SessionService } from './core/session-service.js';
import type { CorrectionIndex } from './corrections/correction-index.js';
import { buildCorrectionIndex } from './corrections/correction-index-start.js';
import { MemoryCorrections } from './corrections/memory-corrections.js';
import { indexLessons } from './corrections/lessons/index.js';
import { authenticationPlugin } from './auth/authentication.js';
import { accessPolicy, accessPolicyOf } from './access/access-policy.js';
import { apiRoutes } from './http/api-routes.js';
import { securityHeaders } from './http/security-headers.js';
import { staticUi } from './http/static-ui.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import { createDefaultTools } from './tools/index.js';
import { addMcpTools } from './tools/mcp/index.js';
import type { ToolRegistry } from './tools/tool-registry.js';
import { BriefWarnings } from './transport/brief-warnings.js';
import { redactUrl } from './access/presented-token.js';
import { closeAllSockets, socketErrorHandler } from './transport/shutdown.js';
import { wsRoute } from './transport/ws-route.js';
import { agentWorkersRoute } from './transport/agent-workers/agent-workers-route.js';
import { WorkerPool } from './agents/remote/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    tools: ToolRegistry;
    agents: AgentRegistry;
    /** The agent workers connected to this process (none without INTERTHOUGHT_AGENT_TOKENS); a cluster tells the other nodes of them. */
    workers: WorkerPool;
    sessions: SessionService;
    /** The index of corrections (PROTOCOL.md §26), kept by the session store. */
    corrections: CorrectionIndex;
    metrics: ServerMetrics;
  }
}

/** Replacements for the default services (tests, benchmarks, other stores). */
export interface AppOverrides {
  sessions?: SessionService;
  /** `main.ts` passes the SQLite or Postgres store the configuration names (and closes it); without one, an in-memory store. */
  store?: EventStore;
  agents?: AgentRegistry;
  tools?: ToolRegistry;
  /** `false` silences the logger; an object is merged over the defaults (the request serializer stays redacting). */
  logger?: boolean | object;
}


const configPlugin = fp(
  async (app: FastifyInstance, options: { config: Config }) => {
    app.decorate('config', options.config);
  },
  { name: 'config' },
);

const registriesPlugin = fp(
  async (app: FastifyInstance, options: { tools: ToolRegistry | undefined; agents: AgentRegistry | undefined }) => {
    const tools = options.tools ?? createDefaultTools();
    // The built-in tools, plus those of the MCP servers configured (a server that fails is logged, never fatal).
    if (options.tools === undefined && app.config.mcp !== undefined) {
      const mcp = await addMcpTools(tools, app.config.mcp, app.log);
      app.addHook('onClose', () => mcp.close());
    }
    app.decorate('tools', tools);
    // The built-in agents and those of the agents file; keys are read from the variables the file names.
    app.decorate('agents', options.agents ?? catalogAgents(app.config.agentsCatalog, process.env));
    app.decorate('workers', new WorkerPool(app.agents));
  },
  { name: 'registries', dependencies: ['config'] },
);

/** What the session core of any process needs besides its store. */
function coreDeps(app: FastifyInstance) {
  return {
    agents: app.agents,
    tools: app.tools,
    defaultTokenDelayMs: app.config.tokenDelayMs,
    // Each run is an OpenTelemetry span (a no-op while tracing is off).
    traceTurn: startTurnSpan,
    maxActiveSessions: app.config.maxSessions,
    pausedRunTtlMs: app.config.pausedRunTtlMs,
    ...(app.config.defaultApprove === undefined ? {} : { defaultApprove: app.config.defaultApprove }),
    ...(app.config.prices === undefined ? {} : { prices: app.config.prices }),
    ...(app.config.maxTokensPerSession === undefined ? {} : { maxTokensPerSession: app.config.maxTokensPerSession }),
    maxSubagentDepth: app.config.maxSubagentDepth,
  };
}

/** The cluster node's log once it is open (set by the sessions plugin), per app. */
type ClusterLogHolder = { current: ClusterLog | undefined };

/**
 * A cluster whose log is in Postgres reports the database's health as a single node on it does
 * (`/api/health`'s `store`, `/api/metrics`); a Redis-only cluster reports none, as before.
 */
function clusterStoreProbe(config: Config, overrides: AppOverrides, holder: ClusterLogHolder): StoreHealthProbe | undefined {
  if (config.cluster === undefined || config.database === undefined || overrides.store !== undefined || overrides.sessions !== undefined) return undefined;
  return { storeHealth: () => holder.current?.storeHealth?.() ?? Promise.resolve({ kind: 'postgres', ok: false }) };
}

/**
 * The session service: the one given (tests, benchmarks); a cluster node when the configuration
 * names Redis; else the session core over the store given (`main.ts` passes the SQLite one and
 * closes it itself) or over a store in memory. `ownStore` is the store started here, closed here.
 */
async function startSessions(
  app: FastifyInstance,
  options: { sessions: SessionService | undefined; store: EventStore | undefined; clusterLog: ClusterLogHolder },
): Promise<{ sessions: SessionService; ownStore: { close(): Promise<void> } | undefined; corrections: CorrectionIndex }> {
  const { cluster } = app.config;
  const { clusterLog } = options;
  // Sessions given without their store: nothing is indexed here.
  if (options.sessions !== undefined) return { sessions: options.sessions, ownStore: undefined, corrections: options.store?.corrections ?? new MemoryCorrections() };
  if (cluster !== undefined && options.store === undefined) {
    const node = await startClusterNode({ ...cluster, retainEventsPerSession: app.config.retainEventsPerSession, database: app.config.database }, coreDeps(app), app.workers);
    clusterLog.current = node.store;
    return { sessions: node.sessions, ownStore: node.store, corrections: node.store.corrections };
  }
  const store = options.store ?? new MemoryEventStore();
  // Before anything is appended or served: a database from before the index gets one now.
  await buildCorrectionIndex(store, (context, error) => app.log.error({ err: error }, context));
  const sessions = await startSessionManager({ store, ...coreDeps(app), lessons: indexLessons(store.corrections) });
  return { sessions, ownStore: options.store === undefined ? store : undefined, corrections: store.corrections };
}

const sessionsPlugin = fp(
  async (app: FastifyInstance, options: { sessions: SessionService | undefined; store: EventStore | undefined; clusterLog: ClusterLogHolder }) => {
    const { sessions, ownStore, corrections } = await startSessions(app, options);
    app.decorate('sessions', sessions);
    app.decorate('corrections', corrections);
    // The sessions stop (and write what is pending) before a store of ours closes.
    app.addHook('onClose', async () => {
      await sessions.shutdown();
      await ownStore?.close();
    });
  },
  { name: 'sessions', dependencies: ['config', 'registries'] },
);

const metricsPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate('metrics', new ServerMetrics(app.sessions));
  },
  { name: 'metrics', dependencies: ['sessions'] },
);

function serializeRequest(request: FastifyRequest) {
  return { method: request.method, url: redactUrl(request.url), host: request.host, remoteAddress: request.ip };
}

function loggerOptions(config: Config, override: AppOverrides['logger']): FastifyServerOptions['logger'] {
  if (override === false) return false;
  const base = { level: config.logLevel, serializers: { req: serializeRequest } };
  if (override === undefined || override === true) return base;
  const custom = override as { serializers?: object };
  return { ...base, ...override, serializers: { ...custom.serializers, req: serializeRequest } } as FastifyServerOptions['logger'];
}

/** Build the Fastify app (not listening): services, the WebSocket at /ws, the REST API at /api, the UI. */
export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: loggerOptions(config, overrides.logger) });
  app.register(configPlugin, { config });
  app.register(registriesPlugin, { tools: overrides.tools, agents: overrides.agents });
  const clusterLog: ClusterLogHolder = { current: undefined };
  app.register(sessionsPlugin, { sessions: overrides.sessions, store: overrides.store, clusterLog });
  app.register(metricsPlugin);

  // Whatever clients cause is logged briefly and at a bounded rate (a hostile client cannot inflate the logs).
  const warnings = new BriefWarnings(app.log);
  app.register(securityHeaders, { webDir: config.webDir });

  app.register(fastifyWebsocket, {
    options: { maxPayload: config.maxFrameBytes, perMessageDeflate: false },
    errorHandler: socketErrorHandler(warnings),
    preClose: async function closeSockets(this: FastifyInstance) {
      await closeAllSockets(this.websocketServer);
    },
  });
  // One Host/Origin policy for every route (REST, static UI, WebSocket), before any handler runs.
  // Registered after @fastify/websocket: its onRequest hook must mark an upgrade first, or a
  // refused upgrade's socket is never destroyed and holds the server's close open.
  app.register(accessPolicy, {
    policy: accessPolicyOf(config),
    onRefused: (request: FastifyRequest, why: 'host' | 'origin') => {
      app.metrics.accessRefused(why);
      const fields = { host: request.headers.host, origin: request.headers.origin, remoteAddress: request.ip };
      warnings.warn(`foreign-${why}`, fields, `refused a request from a foreign ${why === 'host' ? 'Host' : 'Origin'} (403)`);
    },
  });
  app.register(authenticationPlugin, { config });
  app.register(wsRoute, { config, warnings });
  // Agent workers (PROTOCOL.md Part II): the endpoint exists only while tokens are configured.
  if (config.agentTokens !== undefined) app.register(agentWorkersRoute, { config, tokens: config.agentTokens, warnings });
  app.register(apiRoutes, {
    prefix: '/api',
    stats: () => app.sessions.stats,
    store: storeHealthProbeOf(overrides.store) ?? clusterStoreProbe(config, overrides, clusterLog),
  });
  app.register(staticUi, { webDir: config.webDir });
  await app.ready();
  return app;
}
