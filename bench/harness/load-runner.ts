import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromChild, LoadJob, LoadResult, ToChild } from '../load/jobs.js';
import { REPO_ROOT } from './target-process.js';

const LOAD_CHILD = fileURLToPath(new URL('../load/load-child.ts', import.meta.url));

export interface LoadHooks {
  /** The child holds its connections open: measure, then resolve to let it close them. */
  onHolding?: (connections: number) => Promise<void>;
}

/**
 * The load-generator process, started on first use and reused for every job (starting one
 * per job cost more than a smoke run's measuring). A job that overruns its timeout kills the
 * child, so a hung server cannot hang the bench; the next job starts a fresh one.
 */
export class LoadGenerator {
  #child: ChildProcess | undefined;
  #nextId = 0;

  run(job: LoadJob, timeoutMs: number, hooks: LoadHooks = {}): Promise<LoadResult> {
    const child = this.#ensureChild();
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        outcome();
      };
      const timer = setTimeout(() => {
        this.#kill();
        settle(() => reject(new Error(`The ${job.kind} load did not finish within ${Math.round(timeoutMs / 1_000)} s.`)));
      }, timeoutMs);
      const onExit = (code: number | null) => settle(() => reject(new Error(`The load generator exited (code ${code}) during the ${job.kind} load.`)));
      const onMessage = (message: FromChild) => {
        if (message.id !== id) return;
        switch (message.type) {
          case 'holding':
            void (hooks.onHolding?.(message.connections) ?? Promise.resolve()).then(
              () => child.send({ type: 'continue', id } satisfies ToChild),
              (error: unknown) => {
                this.#kill();
                settle(() => reject(error));
              },
            );
            return;
          case 'result':
            settle(() => resolve(message.result));
            return;
          case 'failed':
            settle(() => reject(new Error(`The ${job.kind} load failed: ${message.message}`)));
            return;
        }
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ type: 'run', id, job } satisfies ToChild);
    });
  }

  /** End the child (at the end of the run). */
  close(): void {
    this.#kill();
  }

  #ensureChild(): ChildProcess {
    if (this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null) return this.#child;
    const child = fork(LOAD_CHILD, [], { cwd: REPO_ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    // The child's own output goes to stderr: stdout is the report's.
    child.stdout?.pipe(process.stderr);
    child.stderr?.pipe(process.stderr);
    this.#child = child;
    return child;
  }

  #kill(): void {
    this.#child?.kill('SIGKILL');
    this.#child = undefined;
  }
}
