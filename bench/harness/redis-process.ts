import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchFailure } from '../scenarios/scenario.js';
import { redisCommand } from './redis-command.js';

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
/** Linux reports a process's CPU time in /proc/<pid>/stat in clock ticks of 1/100 s (USER_HZ). */
const CLOCK_TICKS_PER_SECOND = 100;

/** The executable: `redis-server` from PATH (Debian's /usr/bin/redis-server), or `BENCH_REDIS_SERVER`. */
function redisBinary(): string {
  return process.env.BENCH_REDIS_SERVER ?? 'redis-server';
}

/**
 * How often Redis fsyncs its AOF: `always` before every reply (nothing acknowledged is lost, each
 * write waits for the disk), `everysec` from a background thread once a second (a crash loses up
 * to the last second, writes never wait for the disk).
 */
export type AppendFsync = 'always' | 'everysec';

/**
 * A `redis-server` of the bench's own, in a temp dir, on a unix socket (Redis 7.0 cannot pick a
 * free TCP port: `--port 0` turns TCP off), with the AOF on and no RDB snapshots; `appendfsync`
 * says how durable (`always`, as production runs it, unless asked otherwise). A missing
 * `redis-server` fails the scenario with a message saying how to install it.
 */
export class RedisProcess {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #output = '';

  private constructor(
    child: ChildProcess,
    readonly dir: string,
    readonly socket: string,
    readonly appendfsync: AppendFsync,
  ) {
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const keep = (chunk: Buffer) => (this.#output = (this.#output + chunk.toString('utf8')).slice(-20_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  static async start(appendfsync: AppendFsync = 'always'): Promise<RedisProcess> {
    const dir = mkdtempSync(join(tmpdir(), 'interthought-bench-redis-'));
    const socket = join(dir, 'redis.sock');
    const args = ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'yes', '--appendfsync', appendfsync, '--dir', dir];
    // Redis' latency monitor notes every AOF write and fsync of 1 ms or more: what a latency tail owes to the disk.
    args.push('--latency-monitor-threshold', '1');
    const child = spawn(redisBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const redis = new RedisProcess(child, dir, socket, appendfsync);
    // A bench that dies (Ctrl-C, a crash) must not leave a Redis server behind.
    process.once('exit', redis.#killOnExit);
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', (error: NodeJS.ErrnoException) =>
          reject(
            error.code === 'ENOENT'
              ? new BenchFailure(`${redisBinary()} was not found: the cluster scenario needs a Redis server (Debian: apt-get install -y redis-server; or set BENCH_REDIS_SERVER).`)
              : error,
          ),
        );
      });
      await redis.#answersPing();
    } catch (error) {
      redis.#killOnExit();
      process.off('exit', redis.#killOnExit);
      throw error;
    }
    return redis;
  }

  /** What a node's INTERTHOUGHT_REDIS_URL says. */
  get url(): string {
    return `unix://${this.socket}`;
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** The last lines it logged (for error messages). */
  outputTail(lines = 12): string {
    return this.#output.split('\n').slice(-lines).join('\n');
  }

  /** User + system CPU time so far, in microseconds (from /proc), or undefined once it is gone. */
  cpuMicros(): number | undefined {
    try {
      // Fields after the command's closing parenthesis: state is the 1st, utime the 12th, stime the 13th.
      const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      return Number.isFinite(ticks) ? (ticks / CLOCK_TICKS_PER_SECOND) * 1_000_000 : undefined;
    } catch {
      return undefined;
    }
  }

  /** Bytes of the append-only files (Redis 7 keeps them in `appendonlydir/`). */
  aofBytes(): number {
    const aofDir = join(this.dir, 'appendonlydir');
    try {
      return readdirSync(aofDir).reduce((sum, name) => sum + statSync(join(aofDir, name)).size, 0);
    } catch {
      return 0;
    }
  }

  /** Forget the latency monitor's events, so the next `slowEvents` covers only what follows. */
  async resetLatency(): Promise<void> {
    await redisCommand(this.socket, ['LATENCY', 'RESET']);
  }

  /** The slowest of each event of 1 ms or more since the last reset (`aof-fsync-always`, `aof-write` …), in ms. */
  async slowEvents(): Promise<Record<string, number>> {
    const reply = await redisCommand(this.socket, ['LATENCY', 'LATEST']);
    const events: Record<string, number> = {};
    // Each entry: event name, time of its latest spike, latest ms, slowest ms.
    for (const entry of Array.isArray(reply) ? reply : []) {
      if (Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[3] === 'number') events[entry[0]] = entry[3];
    }
    return events;
  }

  /** SIGTERM (SIGKILL if it lingers), then remove its dir. */
  async stop(): Promise<void> {
    process.off('exit', this.#killOnExit);
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.kill('SIGTERM');
      const timer = setTimeout(() => this.#child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await this.#exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  readonly #killOnExit = (): void => {
    this.#child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  };

  /** Poll the socket with PING until `+PONG`. */
  async #answersPing(): Promise<void> {
    let gone = false;
    void this.#exited.then(() => (gone = true));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (gone) throw new BenchFailure(`redis-server exited before it answered PING:\n${this.outputTail()}`);
      if ((await redisCommand(this.socket, ['PING'], 500).catch(() => undefined)) === 'PONG') return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new BenchFailure(`redis-server did not answer PING within ${READY_TIMEOUT_MS} ms:\n${this.outputTail()}`);
  }
}
