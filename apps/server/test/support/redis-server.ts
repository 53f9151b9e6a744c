import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServerOptions {
  /** AOF on, fsynced before every reply (`appendfsync always`), kept in the temp dir across `restart()`. */
  durable?: boolean;
  /** The executable (default `redis-server` from PATH). */
  binary?: string;
}

export interface RedisServer {
  /** The temp dir holding the socket (and the AOF when durable). */
  readonly dir: string;
  /** The unix socket path: pass it to ioredis (`new Redis(socket)`) or `connectRedis`. */
  readonly socket: string;
  /** The running process's pid. */
  readonly pid: number;
  /** What the server wrote to stdout and stderr (its log), for failure messages. */
  log(): string;
  /** Send `signal` (default SIGKILL) and wait until the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Start again on the same dir and socket (after `kill`, or killing it first): the same data when durable. */
  restart(): Promise<void>;
  /** Stop the server and remove its dir. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;
const LOG_LIMIT = 20_000;

/**
 * A fresh `redis-server` of its own, on a unix socket in a temp dir (Redis 7.0 cannot pick a free
 * TCP port: `--port 0` turns TCP off). Resolves once it answers PING. A missing `redis-server`
 * fails with a message saying how to install it: cluster tests never skip.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'it-redis-'));
  const socket = join(dir, 'r.sock');
  const binary = options.binary ?? 'redis-server';
  const args = ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--dir', dir];
  args.push(...(options.durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']));

  let child: ChildProcess;
  let exited: Promise<void>;
  let output = '';
  const launch = async (): Promise<void> => {
    child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const append = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-LOG_LIMIT));
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'ENOENT'
            ? new Error(`${binary} was not found: the cluster tests need a Redis server (Debian: apt-get install -y redis-server).`)
            : error,
        ),
      );
    });
    exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await spawned;
    await waitForPong(socket, exited, () => output);
  };
  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  // A test run that dies must not leave Redis servers behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  try {
    await launch();
  } catch (error) {
    process.off('exit', killOnExit);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    socket,
    get pid() {
      return child.pid ?? -1;
    },
    log: () => output,
    kill,
    restart: async () => {
      await kill();
      await launch();
    },
    stop: async () => {
      process.off('exit', killOnExit);
      await kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Poll the socket with PING until `+PONG` (not `-LOADING` while an AOF is replayed). */
async function waitForPong(socket: string, exited: Promise<void>, log: () => string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`redis-server exited before it answered PING:\n${log()}`);
    if (await pingOnce(socket)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`redis-server did not answer PING within ${READY_TIMEOUT_MS} ms:\n${log()}`);
}

function pingOnce(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = connect(socket);
    let reply = '';
    const done = (ok: boolean) => {
      connection.destroy();
      resolve(ok);
    };
    connection.setTimeout(500, () => done(false));
    connection.on('error', () => done(false));
    connection.on('connect', () => connection.write('PING\r\n'));
    connection.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}
