import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { connectRedis, quitRedis } from '../../src/cluster/redis-connection.js';
import { connectRedisEventStore, type RedisEventStore, type RedisEventStoreOptions } from '../../src/cluster/redis-event-store.js';
import { startRedisServer, type RedisServer, type RedisServerOptions } from '../support/redis-server.js';

/** The one batch builder (store-fixtures'), for the tests that take their Redis fixtures from here. */
export { batchOf } from '../store/store-fixtures.js';

export interface RedisPerFile {
  /** The file's redis-server (started before its first test). */
  readonly server: RedisServer;
  /** A new client, quit after the test. */
  connect(): Promise<Redis>;
  /** A store on a new client, closed after the test. */
  openStore(options?: RedisEventStoreOptions): Promise<RedisEventStore>;
  /** A client for inspecting keys directly, shared by the file's tests. */
  readonly admin: Redis;
}

/**
 * One fresh redis-server per test file, emptied before each test; clients and stores the test
 * opened are closed after it.
 */
export function redisPerFile(options: RedisServerOptions = {}): RedisPerFile {
  let server: RedisServer | undefined;
  let admin: Redis | undefined;
  const opened: Array<{ close(): Promise<void> }> = [];
  const required = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started yet (use it inside a test)`);
    return value;
  };

  beforeAll(async () => {
    server = await startRedisServer(options);
    admin = await connectRedis(server.socket);
  });
  beforeEach(async () => {
    // The server may have been killed by the previous test; the admin client reconnects on its own.
    await required(admin, 'The admin client').flushall();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((resource) => resource.close()));
  });
  afterAll(async () => {
    if (admin) await quitRedis(admin);
    await server?.stop();
  });

  return {
    get server() {
      return required(server, 'The redis-server');
    },
    get admin() {
      return required(admin, 'The admin client');
    },
    async connect() {
      const client = await connectRedis(required(server, 'The redis-server').socket);
      opened.push({ close: () => quitRedis(client) });
      return client;
    },
    async openStore(storeOptions = {}) {
      const store = await connectRedisEventStore(required(server, 'The redis-server').socket, storeOptions);
      opened.push(store);
      return store;
    },
  };
}
