import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROBE = fileURLToPath(new URL('./memory-probe.ts', import.meta.url));
// A server compiled by tsx at start takes over 30 s on a 2-core machine at load average ~20 (seen while seven helpers built and tested).
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 8_000;
const PROBE_TIMEOUT_MS = 10_000;
const READY_LINE = /running at (http:\/\/\S+)/;

/** Which server a target is: the real one, or the raw-ws baseline. */
export type TargetKind = 'interthought' | 'raw-ws';

/** What the memory probe answers (bytes, and CPU microseconds since the process started). */
export interface ProbeReport {
  memory: { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
  cpu: { user: number; system: number };
  gc: boolean;
}

/** The environment that puts Interthought in bench mode: firehose agent, limits out of the way. */
export const BENCH_SERVER_ENV: Record<string, string> = {
  PORT: '0',
  HOST: '127.0.0.1',
  INTERTHOUGHT_BENCH: '1',
  INTERTHOUGHT_RATE_PER_SEC: '100000',
  INTERTHOUGHT_RATE_BURST: '100000',
  INTERTHOUGHT_MAX_SESSIONS_PER_CONNECTION: '100000',
  INTERTHOUGHT_MAX_SUBSCRIPTIONS_PER_CONNECTION: '100000',
  INTERTHOUGHT_MAX_SESSIONS: '1000000',
  // Every load generator connects from 127.0.0.1: the per-address quotas would be the only thing measured.
  INTERTHOUGHT_MAX_CONNECTIONS_PER_ADDRESS: '10000000',
  INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_ADDRESS: '10000000',
  INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_ADDRESS: '100000000',
  INTERTHOUGHT_RUN_STARTS_PER_MINUTE: '100000000',
  INTERTHOUGHT_TOKEN_DELAY_MS: '0',
  // SQLite in memory: the default file would put bench sessions in the repository's data/ (the store scenario sets a temp file).
  INTERTHOUGHT_DB: ':memory:',
  LOG_LEVEL: 'warn',
};

/** Variables of the caller's environment that would change what is measured. */
const SCRUBBED = ['INTERTHOUGHT_TOKEN', 'INTERTHOUGHT_DB', 'ALLOWED_ORIGINS', 'NODE_OPTIONS'];

/**
 * Where servers write a V8 CPU profile on exit (`--cpu-prof`), or undefined when not profiling.
 * Set once by the CLI's `--cpu-prof` flag, before any server starts.
 */
let cpuProfileDir: string | undefined;

/** Make every server started from now on write a `.cpuprofile` into `dir` when it exits. */
export function profileServersInto(dir: string): void {
  cpuProfileDir = dir;
}

/** Where `--cpu-prof` puts profiles, or undefined when not profiling (other children profile with the servers). */
export function cpuProfileDirectory(): string | undefined {
  return cpuProfileDir;
}

/** The node flags of a server child: GC exposed for the memory probe, and the CPU profiler when asked. */
function nodeFlags(): string[] {
  const flags = ['--expose-gc'];
  if (cpuProfileDir !== undefined) flags.push('--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`);
  return flags;
}

/** The server entry of each kind. `BENCH_SERVER_ENTRY` points the harness at another Interthought entry. */
function entryOf(kind: TargetKind): string {
  if (kind === 'raw-ws') return 'bench/baseline/raw-ws-server.ts';
  return process.env.BENCH_SERVER_ENTRY ?? 'apps/server/src/main.ts';
}

/** A measured server running as a child process on loopback. */
export class TargetProcess {
  readonly #child: ChildProcess;
  readonly #output: string[] = [];
  #nextProbe = 0;
  #exited: Promise<number | null>;
  httpUrl = '';

  private constructor(
    readonly kind: TargetKind,
    readonly label: string,
    child: ChildProcess,
  ) {
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    const keep = (chunk: Buffer) => {
      this.#output.push(chunk.toString('utf8'));
      if (this.#output.length > 200) this.#output.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /** Start a server and resolve once it printed "… is running at http://HOST:PORT". */
  static async start(kind: TargetKind, options: { label?: string; env?: Record<string, string> } = {}): Promise<TargetProcess> {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of SCRUBBED) delete env[name];
    Object.assign(env, BENCH_SERVER_ENV, options.env);
    const child = spawn(process.execPath, [...nodeFlags(), '--import', 'tsx', '--import', PROBE, entryOf(kind)], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const target = new TargetProcess(kind, options.label ?? kind, child);
    target.httpUrl = await target.#ready();
    return target;
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** The WebSocket endpoint. */
  get wsUrl(): string {
    return `${this.httpUrl.replace(/^http/, 'ws')}/ws`;
  }

  /** The last lines the server printed (for error messages). */
  outputTail(lines = 20): string {
    return this.#output.join('').split('\n').slice(-lines).join('\n');
  }

  #ready(): Promise<string> {
    return new Promise((resolve, reject) => {
      let seen = '';
      const settle = () => {
        clearTimeout(timer);
        this.#child.stdout?.off('data', onData);
        this.#child.off('exit', onExit);
      };
      const fail = (why: string) => {
        settle();
        this.#child.kill('SIGKILL');
        reject(new Error(`${this.label} ${why}.\n${this.outputTail()}`));
      };
      const onData = (chunk: Buffer) => {
        seen += chunk.toString('utf8');
        const url = READY_LINE.exec(seen)?.[1];
        if (url === undefined) return;
        settle();
        resolve(url);
      };
      const onExit = (code: number | null) => fail(`exited with code ${code} before it was ready`);
      const timer = setTimeout(() => fail(`did not print its address within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
      this.#child.stdout?.on('data', onData);
      this.#child.once('exit', onExit);
    });
  }

  /** Memory (after a full GC when `collect`) and CPU time, from the preloaded probe. */
  probe(collect = true): Promise<ProbeReport> {
    const id = ++this.#nextProbe;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#child.off('message', onMessage);
        reject(new Error(`${this.label} did not answer the memory probe.`));
      }, PROBE_TIMEOUT_MS);
      const onMessage = (message: { type?: string; id?: number } & ProbeReport) => {
        if (message.type !== 'bench.probe' || message.id !== id) return;
        clearTimeout(timer);
        this.#child.off('message', onMessage);
        resolve({ memory: message.memory, cpu: message.cpu, gc: message.gc });
      };
      this.#child.on('message', onMessage);
      this.#child.send({ type: 'bench.probe', id, collect });
    });
  }

  /** Resident set size from /proc (bytes), a cross-check that needs nothing from the process. */
  procRss(): number | undefined {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
      return kb === undefined ? undefined : Number(kb) * 1_024;
    } catch {
      return undefined;
    }
  }

  /** Whether the process still runs (it has neither exited nor been killed). */
  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Resolves once the process is gone, with its exit code (null when a signal ended it). */
  get exited(): Promise<number | null> {
    return this.#exited;
  }

  /** SIGKILL, as a crash would end it: no handler runs, nothing pending is written. Resolves once it is gone. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.#child.kill('SIGKILL');
    await this.#exited;
  }

  /** SIGTERM, then SIGKILL if it has not exited in time. */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await this.#exited;
    clearTimeout(timer);
  }
}
