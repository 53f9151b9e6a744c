import type { StoreHealth } from '../core/persistence/store-health.js';

/**
 * The store's health in the Prometheus text format, appended to `/api/metrics` (asked of the store
 * at scrape time, since its round trip is a query, not a counter the registry can hold).
 */
export function renderStoreMetrics(health: StoreHealth): string {
  const kind = `kind="${health.kind}"`;
  const lines = [
    '# HELP interthought_store_up 1 when the store answered a trivial query within 2 s.',
    '# TYPE interthought_store_up gauge',
    `interthought_store_up{${kind}} ${health.ok ? 1 : 0}`,
  ];
  if (health.latencyMs !== undefined) {
    lines.push(
      '# HELP interthought_store_latency_seconds The round trip of that query.',
      '# TYPE interthought_store_latency_seconds gauge',
      `interthought_store_latency_seconds{${kind}} ${health.latencyMs / 1000}`,
    );
  }
  const { pool } = health;
  if (pool !== undefined) {
    lines.push(
      '# HELP interthought_store_pool_connections Store connections, by state (open, idle) and the pool size limit (max).',
      '# TYPE interthought_store_pool_connections gauge',
      `interthought_store_pool_connections{${kind},state="max"} ${pool.max}`,
      `interthought_store_pool_connections{${kind},state="open"} ${pool.total}`,
      `interthought_store_pool_connections{${kind},state="idle"} ${pool.idle}`,
      '# HELP interthought_store_pool_waiting Store queries waiting for a free connection.',
      '# TYPE interthought_store_pool_waiting gauge',
      `interthought_store_pool_waiting{${kind}} ${pool.waiting}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
