import type { SessionService } from '../core/session-service.js';
import { MetricsRegistry } from './metrics-registry.js';

/** What the WebSocket transport reports as it goes (kept free of the registry, so tests can pass their own). */
export interface TransportMetrics {
  connectionOpened(): void;
  connectionClosed(): void;
  /** A valid request was carried out or refused by the core; `type` is its message type. */
  requestReceived(type: string): void;
  /** An `error` frame went out; `code` is its error code. */
  requestRefused(code: string): void;
  slowConsumerClosed(): void;
  rateLimitClosed(): void;
}

/**
 * The server's metrics (`GET /api/metrics`): connections, requests and refusals by kind,
 * backpressure closes, sessions, what the store has written and how the outbox commits, and the
 * process's memory.
 */
export class ServerMetrics implements TransportMetrics {
  readonly registry = new MetricsRegistry();
  #openConnections = 0;
  readonly #connections = this.registry.counter('interthought_connections_total', 'WebSocket connections accepted.');
  readonly #requests = this.registry.labeledCounter('interthought_requests_total', 'Valid client requests, by type.', 'type');
  readonly #refusals = this.registry.labeledCounter('interthought_request_errors_total', 'Error frames sent to clients, by code.', 'code');
  readonly #slowConsumers = this.registry.counter('interthought_slow_consumer_closes_total', 'Connections closed with 4008 because they read too slowly.');
  readonly #rateLimitCloses = this.registry.counter('interthought_rate_limit_closes_total', 'Connections closed with 1008 for exceeding the rate limit again and again.');
  readonly #accessRefusals = this.registry.labeledCounter('interthought_access_refusals_total', 'Requests refused 403 for a foreign Host (DNS rebinding) or Origin, by which.', 'reason');

  constructor(sessions: SessionService) {
    const { registry } = this;
    registry.gauge('interthought_connections_open', 'WebSocket connections open now.', () => this.#openConnections);
    registry.gauge('interthought_sessions_active', 'Sessions whose agent is running or paused.', () => sessions.stats.activeSessions);
    registry.gauge('interthought_sessions_in_memory', 'Sessions held in memory (running, watched, or cached while idle).', () => sessions.stats.sessionsInMemory);
    registry.counterFrom('interthought_events_written_total', 'Session events written to the store.', () => sessions.stats.commits.eventsWritten);
    registry.counterFrom('interthought_store_transactions_total', 'Group commits of session events (one store transaction each, with the summaries they changed; creations and deletions not counted).', () => sessions.stats.commits.transactions);
    registry.gauge('interthought_commit_span_turn', '1 while runs of a turn share one transaction (dear commits), 0 while each run commits alone.', () =>
      sessions.stats.commits.span === 'turn' ? 1 : 0,
    );
    // What model calls used (PROTOCOL.md §22): tokens as the endpoints reported them, cost where the model has a price.
    const usage = () => sessions.stats.usage;
    registry.counterFrom('interthought_model_calls_total', 'Model calls whose usage was recorded.', () => usage().modelCalls);
    registry.counterFrom('interthought_input_tokens_total', 'Input (prompt) tokens of model calls, cached ones included.', () => usage().inputTokens);
    registry.counterFrom('interthought_output_tokens_total', 'Output (completion) tokens of model calls, reasoning ones included.', () => usage().outputTokens);
    registry.counterFrom('interthought_cached_tokens_total', 'Input tokens the endpoints served from their cache.', () => usage().cachedTokens);
    registry.counterFrom('interthought_reasoning_tokens_total', 'Output tokens the models spent reasoning.', () => usage().reasoningTokens);
    registry.counterFrom('interthought_cost_usd_total', 'What model calls cost in US dollars, by INTERTHOUGHT_PRICES (calls of unpriced models count nothing).', () => usage().costUsd);
    registry.gauge('interthought_transaction_seconds', 'Mean time to write a small batch (a transaction by itself).', () => sessions.stats.commits.transactionCostMs / 1_000);
    if (sessions.stats.cluster !== undefined) {
      // A cluster node's part in the cluster (`GET /api/health` shows the same figures).
      const cluster = () => sessions.stats.cluster;
      registry.gauge('interthought_cluster_redis_up', '1 while this node is connected to Redis, 0 while it reconnects.', () => (cluster()?.redis === 'ready' ? 1 : 0));
      registry.gauge('interthought_cluster_owned_sessions', 'Sessions whose lease this node holds (their runs run here).', () => cluster()?.ownedSessions ?? 0);
      registry.counterFrom('interthought_cluster_lease_renewals_total', 'Lease renewals that succeeded.', () => cluster()?.leaseRenewals ?? 0);
      registry.counterFrom('interthought_cluster_takeovers_total', 'Sessions this node took over from a node that died.', () => cluster()?.takeovers ?? 0);
      registry.counterFrom('interthought_cluster_lost_sessions_total', 'Sessions this node lost to another (its lease expired): it stopped running them.', () => cluster()?.lostSessions ?? 0);
      registry.counterFrom('interthought_cluster_fenced_appends_total', 'Appends Redis refused FENCED: written under an epoch another node had replaced (nothing was written).', () => cluster()?.fencedAppends ?? 0);
      registry.counterFrom('interthought_cluster_routed_commands_total', 'Commands this node sent to the owner of their session.', () => cluster()?.routedCommands ?? 0);
      registry.counterFrom('interthought_cluster_served_commands_total', 'Commands other nodes sent here, to the owner.', () => cluster()?.servedCommands ?? 0);
    }
    registry.gauge('process_resident_memory_bytes', 'Resident set size.', () => process.memoryUsage.rss());
    registry.gauge('nodejs_heap_used_bytes', 'V8 heap in use.', () => process.memoryUsage().heapUsed);
    registry.gauge('process_uptime_seconds', 'Seconds since the process started.', () => Math.round(process.uptime()));
  }

  connectionOpened(): void {
    this.#openConnections += 1;
    this.#connections.inc();
  }

  connectionClosed(): void {
    this.#openConnections = Math.max(0, this.#openConnections - 1);
  }

  requestReceived(type: string): void {
    this.#requests.inc(type);
  }

  requestRefused(code: string): void {
    this.#refusals.inc(code);
  }

  slowConsumerClosed(): void {
    this.#slowConsumers.inc();
  }

  rateLimitClosed(): void {
    this.#rateLimitCloses.inc();
  }

  /** A request refused by the Host/Origin policy. */
  accessRefused(reason: 'host' | 'origin'): void {
    this.#accessRefusals.inc(reason);
  }

  render(): string {
    return this.registry.render();
  }
}
