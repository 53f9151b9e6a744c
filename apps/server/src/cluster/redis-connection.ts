import { Redis, type RedisOptions } from 'ioredis';

/** Where Redis is: a `redis://` URL, a unix socket path, or ioredis options. */
export type RedisTarget = string | RedisOptions;

/**
 * A client for `target`, connected and ready. `lazyConnect` makes a Redis that is down or
 * misnamed fail here, at start-up, instead of queueing commands forever.
 *
 * Commands sent but unanswered when the connection drops are resent on reconnect (ioredis'
 * `autoResendUnfulfilledCommands`); every script is safe to run twice (see `redis-scripts.ts`).
 */
export async function connectRedis(target: RedisTarget, overrides: RedisOptions = {}): Promise<Redis> {
  const options: RedisOptions = { lazyConnect: true, ...overrides };
  const redis = typeof target === 'string' ? new Redis(target, options) : new Redis({ ...target, ...options });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return redis;
}

/** Close a client: QUIT when it is connected, else drop it (a QUIT would wait for a reconnect). */
export async function quitRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
