import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PostgresServer {
  /** The temp dir holding the cluster's data and its socket. */
  readonly dir: string;
  /** The loopback TCP port it listens on. */
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database?: string): string;
  /** A new, empty database on this server; its URL. */
  createDatabase(): Promise<string>;
  /** A new, empty schema in the `postgres` database; a URL whose connections use it (`options=-c search_path=…`), much faster to make than a database. */
  createSchema(): Promise<string>;
  /** What the server wrote (its log), for failure messages. */
  log(): string;
  /** Send `signal` (default SIGKILL) and wait until the postmaster is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Start again on the same data dir and port (after `kill`): the same data. */
  restart(): Promise<void>;
  /** Stop the server and remove its dir. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 20_000;
const LOG_LIMIT = 20_000;
const STOP_GRACE_MS = 3_000;
/** Unprivileged: initdb and postgres refuse root. */
const RUN_AS = 'postgres';

/** The newest installed PostgreSQL's bin folder (Debian keeps them under /usr/lib/postgresql/<major>/bin). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb'))) : [];
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) {
    throw new Error('PostgreSQL was not found (no /usr/lib/postgresql/*/bin/initdb): the Postgres store tests need it (Debian: apt-get install -y postgresql).');
  }
  return join(root, newest, 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** As root, the unprivileged user's uid and gid to run initdb and postgres as (spawned directly, so signals reach the postmaster). */
function unprivileged(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, RUN_AS], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isSafeInteger(uid) || uid <= 0) throw new Error(`Running as root, the Postgres tests need a "${RUN_AS}" user to run PostgreSQL as (Debian's postgresql package makes it).`);
  return { uid, gid };
}

/**
 * A fresh PostgreSQL cluster of its own: initdb in a temp dir (as the `postgres` user when run as
 * root), trust auth, listening on a free loopback port with its socket in the same dir. Resolves
 * once it accepts a query. A missing PostgreSQL fails with how to install it: tests never skip.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'it-pg-'));
  const data = join(dir, 'data');
  const user = unprivileged();
  if (user) chownSync(dir, user.uid, user.gid);
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '--auth=trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'], {
    encoding: 'utf8',
    ...user,
  });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.error?.message ?? `exit ${init.status}`}):\n${init.stdout}\n${init.stderr}`);
  }
  const port = await freePort();
  let child: ChildProcess;
  let exited: Promise<void>;
  let output = '';
  const launch = async (): Promise<void> => {
    const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'];
    child = spawn(join(bin, 'postgres'), args, { stdio: ['ignore', 'pipe', 'pipe'], ...user });
    const append = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-LOG_LIMIT));
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await waitForQuery(`postgres://postgres@127.0.0.1:${port}/postgres`, exited, () => output);
  };
  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  // A test run that dies must not leave servers behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  try {
    await launch();
  } catch (error) {
    process.off('exit', killOnExit);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let databases = 0;
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    dir,
    port,
    url,
    async createDatabase() {
      const name = `it_${process.pid}_${++databases}`;
      await runAsAdmin(url(), `CREATE DATABASE ${name}`);
      return url(name);
    },
    async createSchema() {
      const name = `it_${process.pid}_${++databases}`;
      await runAsAdmin(url(), `CREATE SCHEMA ${name}`);
      return `${url()}?options=${encodeURIComponent(`-c search_path=${name}`)}`;
    },
    log: () => output,
    kill,
    restart: async () => {
      await kill();
      await launch();
    },
    stop: async () => {
      process.off('exit', killOnExit);
      // Fast shutdown (SIGINT) ends sessions without waiting for clients; the data is thrown away, so no need to wait for its checkpoint.
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await kill('SIGINT');
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One statement on a connection of its own (CREATE DATABASE cannot run in a pool's transaction). */
/** Run `sql` on a connection of its own (DDL, a superuser's settings). */
export async function runAsAdmin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function waitForQuery(url: string, exited: Promise<void>, log: () => string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`postgres exited before it accepted a connection:\n${log()}`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`postgres did not accept a connection within ${READY_TIMEOUT_MS} ms:\n${log()}`);
}
