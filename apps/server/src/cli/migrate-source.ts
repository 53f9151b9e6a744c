import { resolve } from 'node:path';
import { redisTarget } from '../cluster/cluster-node.js';
import { connectRedisEventStore } from '../cluster/redis-event-store.js';
import type { EventStore } from '../core/persistence/event-store.js';
import { openSqliteEventStore } from '../store/sqlite-event-store.js';

/** A `--from` that names no store this command can read. */
export class MigrateUsageError extends Error {
  override readonly name = 'MigrateUsageError';
}

const REDIS_URL = /^(rediss?|unix):\/\//;

/** The password of a URL, masked for messages. */
function masked(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * The store `--from` names: a Redis-only cluster's Redis for a redis://, rediss:// or unix:// URL,
 * else a SQLite file (relative to `cwd`). Either is read through the same `EventStore` reads.
 */
export async function openSource(from: string, cwd: string): Promise<EventStore> {
  if (!REDIS_URL.test(from)) return openSqliteEventStore(resolve(cwd, from));
  let url: URL;
  try {
    url = new URL(from);
  } catch (error) {
    throw new MigrateUsageError(`${masked(from)} is not a URL (${(error as Error).message}).`, { cause: error });
  }
  if (url.protocol === 'unix:' ? url.pathname === '' || url.pathname === '/' : url.hostname === '') {
    throw new MigrateUsageError(`${masked(from)} names no Redis ${url.protocol === 'unix:' ? 'socket path' : 'host'}.`);
  }
  // Retention is the source's business: a copy reads what it kept and trims nothing.
  return connectRedisEventStore(redisTarget(from), { retainEventsPerSession: 'all' });
}
