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
  // The first failure is what `connect` rejects with; without a listener ioredis would also print it as unhandled.
  let firstError: Error | undefined;
  const noteError = (error: Error): void => {
    firstError ??= error;
  };
  redis.on('error', noteError);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new RedisUnreachableError(target, firstError ?? (error as Error));
  } finally {
    redis.off('error', noteError);
  }
  return redis;
}

/** Redis could not be reached at start-up: the message names where, and why. */
export class RedisUnreachableError extends Error {
  override readonly name = 'RedisUnreachableError';
  constructor(target: RedisTarget, cause: Error) {
    const where = typeof target === 'string' ? target.replace(/\/\/[^@/]*@/, '//***@') : (target.path ?? `${target.host ?? 'localhost'}:${target.port ?? 6379}`);
    super(`Redis at ${where} is unreachable: ${cause.message}`, { cause });
  }
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
