import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../bench/harness/target-process.js';

const CHILD = fileURLToPath(new URL('./stall-probe-child.ts', import.meta.url));

/** What the probe measured: the slowest `/api/health` answer while the server was up. */
export interface StallReport {
  worstMs: number;
  worstAt: string;
  polls: number;
  failures: number;
  intervalMs: number;
}

/**
 * Samples the server's event-loop stall from outside: `GET /api/health` at a fixed interval from
 * a process of its own, recording the slowest answer. Paused while the server is down.
 */
export class StallProbe {
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess, readonly intervalMs: number) {
    this.#child = child;
  }

  static start(intervalMs: number): StallProbe {
    const child = fork(CHILD, [], { cwd: REPO_ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return new StallProbe(child, intervalMs);
  }

  /** Poll this server from now on. */
  watch(httpUrl: string): void {
    this.#child.send({ type: 'watch', url: httpUrl, intervalMs: this.intervalMs });
  }

  /** Stop polling (the server is about to go down). */
  pause(): void {
    this.#child.send({ type: 'pause' });
  }

  /** The slowest answer since the last report (the counts start again). */
  report(timeoutMs = 10_000): Promise<StallReport> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#child.off('message', onMessage);
        reject(new Error('the stall probe did not report'));
      }, timeoutMs);
      const onMessage = (message: { type?: string } & StallReport) => {
        if (message.type !== 'report') return;
        clearTimeout(timer);
        this.#child.off('message', onMessage);
        resolve(message);
      };
      this.#child.on('message', onMessage);
      this.#child.send({ type: 'report' });
    });
  }

  stop(): void {
    if (this.#child.connected) this.#child.disconnect();
    setTimeout(() => this.#child.kill('SIGKILL'), 2_000).unref();
  }
}
