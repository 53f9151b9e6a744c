import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { readDatabaseConfig } from '../../src/config/database-config.js';
import { loadConfig } from '../../src/config/index.js';
import { migrate, POSTGRES_MIGRATIONS, type PostgresMigration } from '../../src/store/postgres/migrations.js';
import { openPostgresEventStore, PostgresOpenError } from '../../src/store/postgres/postgres-event-store.js';
import { usePostgresServer } from '../support/postgres-scope.js';

const postgres = usePostgresServer();

async function versionRows(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: number }>('SELECT version FROM interthought_schema_versions ORDER BY version');
    return rows.map((row) => row.version);
  } finally {
    await client.end();
  }
}

describe('opening the Postgres store', () => {
  it('migrates once when several nodes start at the same moment, and every one of them opens', async () => {
    const url = await postgres.current.createSchema();
    const stores = await Promise.all(Array.from({ length: 6 }, () => openPostgresEventStore({ url, poolSize: 2 })));
    expect(await versionRows(url)).toEqual(POSTGRES_MIGRATIONS.map((_, index) => index + 1));
    for (const store of stores) expect(await store.schemaVersion()).toBe(POSTGRES_MIGRATIONS.length);
    await Promise.all(stores.map((store) => store.close()));
  });

  it('leaves a failed migration rolled back, at the last good version, and says which step failed', async () => {
    const url = await postgres.current.createSchema();
    const broken: PostgresMigration = async (client) => {
      await client.query('CREATE TABLE half_done (id int)');
      await client.query('SELECT no_such_function()');
    };
    const pool = new pg.Pool({ connectionString: url });
    const failure = await migrate(pool, url, [...POSTGRES_MIGRATIONS, broken]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PostgresOpenError);
    expect(failure).toMatchObject({ code: 'MIGRATION_FAILED' });
    const good = POSTGRES_MIGRATIONS.length;
    expect((failure as Error).message).toMatch(new RegExp(`from schema version ${good} to ${good + 1} failed .*no_such_function.*it was left at version ${good}\\.$`));
    expect(await versionRows(url)).toEqual(POSTGRES_MIGRATIONS.map((_, index) => index + 1));
    const { rows } = await pool.query("SELECT to_regclass('half_done') AS table");
    expect(rows[0].table).toBeNull();
    await pool.end();
  });

  it('refuses a database a newer Interthought migrated', async () => {
    const url = await postgres.current.createSchema();
    await (await openPostgresEventStore({ url })).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('INSERT INTO interthought_schema_versions (version) VALUES ($1)', [POSTGRES_MIGRATIONS.length + 1]);
    await client.end();
    await expect(openPostgresEventStore({ url })).rejects.toMatchObject({ name: 'PostgresOpenError', code: 'SCHEMA_TOO_NEW' });
  });

  it('refuses an unreachable server as UNREACHABLE, with the password masked', async () => {
    const url = `postgres://postgres:hunter2@127.0.0.1:${postgres.current.port}/missing_db`;
    const error = (await openPostgresEventStore({ url }).catch((reason: unknown) => reason)) as PostgresOpenError;
    expect(error).toMatchObject({ name: 'PostgresOpenError', code: 'UNREACHABLE', target: `postgres://postgres:***@127.0.0.1:${postgres.current.port}/missing_db` });
    expect(error.message).not.toContain('hunter2');
  });

  it('reads INTERTHOUGHT_DATABASE_URL (postgres:// or postgresql://, sslmode) and INTERTHOUGHT_DATABASE_POOL, refusing bad ones by name', () => {
    expect(readDatabaseConfig({})).toBeUndefined();
    expect(readDatabaseConfig({ INTERTHOUGHT_DATABASE_URL: 'postgresql://u:p@db.internal:5432/it?sslmode=verify-full', INTERTHOUGHT_DATABASE_POOL: '25' })).toEqual({
      url: 'postgresql://u:p@db.internal:5432/it?sslmode=verify-full',
      poolSize: 25,
    });
    expect(readDatabaseConfig({ INTERTHOUGHT_DATABASE_URL: 'postgres://db/it' })).toEqual({ url: 'postgres://db/it', poolSize: 10 });
    expect(() => readDatabaseConfig({ INTERTHOUGHT_DATABASE_URL: 'postgres://u:secret@db/it?sslmode=always' })).toThrow(
      /INTERTHOUGHT_DATABASE_URL: has sslmode=always; use one of disable, prefer, require, no-verify, verify-ca, verify-full/,
    );
    expect(() => readDatabaseConfig({ INTERTHOUGHT_DATABASE_URL: 'redis://db' })).toThrow(/INTERTHOUGHT_DATABASE_URL: must be a postgres:\/\//);
    expect(() => readDatabaseConfig({ INTERTHOUGHT_DATABASE_URL: 'postgres://db/it', INTERTHOUGHT_DATABASE_POOL: 'many' })).toThrow(/INTERTHOUGHT_DATABASE_POOL: must be a whole number from 1 to 1000/);
    expect(loadConfig({ INTERTHOUGHT_DATABASE_URL: 'postgres://db/it' }).database).toEqual({ url: 'postgres://db/it', poolSize: 10 });
    // Both set: a cluster whose log is the database (Redis carries leases, fan-out and commands).
    const both = loadConfig({ INTERTHOUGHT_DATABASE_URL: 'postgres://db/it', INTERTHOUGHT_REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(both.database).toEqual({ url: 'postgres://db/it', poolSize: 10 });
    expect(both.cluster?.redisUrl).toBe('redis://127.0.0.1:6379');
  });
});
