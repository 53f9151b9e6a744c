import { connectMany, mergeErrors } from './bench-socket.js';
import type { IdleJob, IdleResult } from './jobs.js';

/**
 * Open `connections` idle connections (each got its `hello`), tell the harness through
 * `holding` so it can measure the target's memory, and close them when it says `continue`.
 */
export async function runIdle(job: IdleJob, holding: (connections: number) => Promise<void>): Promise<IdleResult> {
  const started = performance.now();
  const sockets = await connectMany(job.url, job.connections);
  const connectMs = performance.now() - started;
  try {
    await holding(sockets.length);
    return { kind: 'idle', connections: sockets.length, connectMs: Math.round(connectMs), errors: mergeErrors(sockets) };
  } finally {
    for (const socket of sockets) socket.close();
  }
}
