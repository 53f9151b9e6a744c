import type { Health } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { usePostgresServer } from '../support/postgres-scope.js';
import { useDurableScope } from './support/durable-scope.js';
import { spawnServerProcess, startDurableServer } from './support/durable-server.js';
import { crashMidStream, parseEvents } from './support/crash-mid-stream.js';
import { expectWholeLog } from './support/log-checks.js';

const postgres = usePostgresServer();
const connect = useDurableScope(() => undefined);
const parse = parseEvents;

/** Each test starts server processes, which take a while on a loaded machine. */
const PROCESS_TEST_MS = 180_000;

describe('a single node on Postgres, no Redis', () => {
  it('kill -9 mid-stream, restart: a client resumes by cursor gapless, byte for byte, and the run is marked interrupted', async () => {
    const env = { INTERTHOUGHT_DATABASE_URL: await postgres.current.createDatabase(), INTERTHOUGHT_TOKEN_DELAY_MS: '20' };
    const { second, sessionId, log } = await crashMidStream(env, connect, 'Sessions are stored in the Postgres database at postgres://postgres@127.0.0.1:');
    expect(expectWholeLog(sessionId, parse(log)).session.status).toBe('interrupted');
    expect(await second.stop()).toBe(0);
  }, PROCESS_TEST_MS);

  it('/api/health and /api/metrics name the store and report its round trip and pool', async () => {
    const server = await startDurableServer({ INTERTHOUGHT_DATABASE_URL: await postgres.current.createDatabase(), INTERTHOUGHT_DATABASE_POOL: '4' });
    const health = (await (await fetch(`${server.url}/api/health`)).json()) as Health;
    expect(health.store).toEqual({ kind: 'postgres', ok: true, latencyMs: expect.any(Number), pool: { max: 4, total: expect.any(Number), idle: expect.any(Number), waiting: 0 } });
    expect(health.store?.pool?.total).toBeGreaterThanOrEqual(1);
    // The route is public: it never shows where the database is.
    expect(JSON.stringify(health)).not.toContain('127.0.0.1');
    const metrics = await (await fetch(`${server.url}/api/metrics`)).text();
    expect(metrics).toContain('interthought_store_up{kind="postgres"} 1\n');
    expect(metrics).toMatch(/\ninterthought_store_latency_seconds\{kind="postgres"\} \d+(\.\d+)?(e-\d+)?\n/);
    expect(metrics).toContain('interthought_store_pool_connections{kind="postgres",state="max"} 4\n');
    expect(await server.stop()).toBe(0);
  }, PROCESS_TEST_MS);

  it('refuses a malformed INTERTHOUGHT_DATABASE_URL or pool size at start-up, naming the variable, without a stack trace', async () => {
    const server = spawnServerProcess({ INTERTHOUGHT_DATABASE_URL: 'mysql://root@localhost/db', INTERTHOUGHT_DATABASE_POOL: '0' });
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toContain('INTERTHOUGHT_DATABASE_URL: must be a postgres://user:password@host:port/database URL');
    expect(server.stderr()).toContain('INTERTHOUGHT_DATABASE_POOL: must be a whole number from 1 to 1000');
    expect(server.stderr()).not.toMatch(/\bat .+:\d+:\d+/);
  }, PROCESS_TEST_MS);

  it('refuses an unreachable database at start-up with one paragraph naming the variable, and no password', async () => {
    const url = `postgres://postgres:s3cret@127.0.0.1:${postgres.current.port}/no_such_database`;
    const server = spawnServerProcess({ INTERTHOUGHT_DATABASE_URL: url });
    expect(await server.exited).toBe(1);
    const stderr = server.stderr();
    expect(stderr).toMatch(/^Interthought cannot start: it cannot use its session database \(INTERTHOUGHT_DATABASE_URL\)\. Cannot connect to the Postgres database at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/no_such_database: [^\n]+\n$/);
    expect(stderr).toContain('database "no_such_database" does not exist');
    expect(stderr).not.toContain('s3cret');
    expect(server.stdout()).toBe('');
  }, PROCESS_TEST_MS);
});
