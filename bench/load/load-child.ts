/**
 * The load generator: a child process of the harness, so it never shares a CPU turn with the
 * server it measures. It runs the jobs it gets over IPC one at a time, answering each with its
 * result; the harness ends it when the run is over (and it exits when the harness goes away).
 */
import { runCorrections } from './correction-workload.js';
import { runFollow } from './follow-workload.js';
import { runIdle } from './idle-workload.js';
import type { FromChild, LoadJob, LoadResult, ToChild } from './jobs.js';
import { runReplay } from './replay-workload.js';
import { runStream } from './stream-workload.js';

function tell(message: FromChild): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, () => resolve());
  });
}

/** Jobs holding connections until the harness says `continue`, by job id. */
const held = new Map<number, () => void>();

function holding(id: number) {
  return (connections: number): Promise<void> =>
    new Promise((resolve) => {
      held.set(id, resolve);
      void tell({ type: 'holding', id, connections });
    });
}

function run(id: number, job: LoadJob): Promise<LoadResult> {
  switch (job.kind) {
    case 'stream':
      return runStream(job.stream, holding(id));
    case 'idle':
      return runIdle(job, holding(id));
    case 'correction':
      return runCorrections(job);
    case 'replay':
      return runReplay(job);
    case 'follow':
      return runFollow(job, holding(id));
    default: {
      const unknown: never = job;
      throw new Error(`Unknown load job ${JSON.stringify(unknown)}`);
    }
  }
}

async function handle(message: ToChild): Promise<void> {
  switch (message.type) {
    case 'continue':
      held.get(message.id)?.();
      held.delete(message.id);
      return;
    case 'run':
      try {
        await tell({ type: 'result', id: message.id, result: await run(message.id, message.job) });
      } catch (error) {
        await tell({ type: 'failed', id: message.id, message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      }
      return;
  }
}

if (!process.send) {
  console.error('bench/load/load-child.ts is started by bench/run.ts (it needs an IPC channel).');
  process.exit(2);
}
process.on('message', (message: ToChild) => void handle(message));
// Never outlive the harness.
process.on('disconnect', () => process.exit(0));
