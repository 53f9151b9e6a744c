import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, cpuProfileDirectory } from './target-process.js';

const ENTRY = fileURLToPath(new URL('./firehose-worker.ts', import.meta.url));
const START_TIMEOUT_MS = 30_000;

/** A worker process serving the firehose agent to a measured server (harness/firehose-worker.ts). */
export class FirehoseWorker {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #output = '';

  private constructor(child: ChildProcess) {
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const keep = (chunk: Buffer) => (this.#output = (this.#output + chunk.toString('utf8')).slice(-4_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /** Start it against `httpUrl` and resolve once its agent `name` is registered. */
  static async start(httpUrl: string, token: string, name: string): Promise<FirehoseWorker> {
    const profileDir = cpuProfileDirectory();
    // Profiled with the servers (`--cpu-prof`): half of the hop's cost is the worker's.
    const profile = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
    const child = spawn(process.execPath, [...profile, '--import', 'tsx', ENTRY, httpUrl, token, name], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const worker = new FirehoseWorker(child);
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        if (!/registered \S+/u.test(worker.#output)) return;
        settle();
        resolve();
      }, 20);
      const timer = setTimeout(() => fail(`did not register within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
      const settle = () => {
        clearInterval(poll);
        clearTimeout(timer);
      };
      const fail = (why: string) => {
        settle();
        child.kill('SIGKILL');
        reject(new Error(`The firehose worker ${why}.\n${worker.#output}`));
      };
      void worker.#exited.then(() => fail('exited before it registered'));
    });
    return worker;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** SIGKILL, as a crash would end it: the connection drops without a close frame. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.#child.kill('SIGKILL');
    await this.#exited;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5_000);
    await this.#exited;
    clearTimeout(timer);
  }
}
