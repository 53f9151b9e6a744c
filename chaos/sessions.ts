import { formatFirehoseTask } from '../apps/server/src/agents/firehose/firehose-params.js';
import { ChaosSocket } from './chaos-socket.js';
import { readDurableLog } from './durable-log.js';
import type { StreamShape } from './scale.js';
import type { Ledgers } from './session-ledger.js';
import type { StreamFollower } from './stream-follower.js';
import type { ChaosTally } from './tally.js';

/** The firehose task of a stream shape (its parameters travel in the task text). */
export function firehoseTask(shape: StreamShape): string {
  return formatFirehoseTask({ rate: shape.rate, durationMs: shape.durationMs, perStep: shape.perStep, size: 32 });
}

/**
 * Start `count` firehose sessions from one connection, which then leaves: the runs go on, and the
 * followers read them from seq 1.
 */
export async function createFirehoseSessions(wsUrl: string, count: number, shape: StreamShape, agent = 'firehose'): Promise<string[]> {
  const creator = await ChaosSocket.connect(wsUrl);
  try {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await creator.request({ type: 'session.create', agent, task: firehoseTask(shape) });
      const sessionId = created.session?.sessionId;
      if (created.type !== 'session.created' || sessionId === undefined) throw new Error(`session.create answered ${created.type}`);
      ids.push(sessionId);
    }
    return ids;
  } finally {
    creator.close();
  }
}

/**
 * The end of a phase: each session's durable log (a fresh replay from afterSeq 0) must hold every
 * event any client saw, unchanged, and a follower that saw the session end must have seen all of it.
 */
export async function checkAgainstLogs(
  wsUrl: string,
  ledgers: Ledgers,
  followers: readonly StreamFollower[],
  tally: ChaosTally,
  phase: string,
): Promise<void> {
  const sessionIds = [...new Set(followers.map((follower) => follower.sessionId))];
  for (const sessionId of sessionIds) {
    let log;
    try {
      log = await readDurableLog(wsUrl, sessionId);
    } catch (error) {
      tally.violation(phase, `session ${sessionId}: its log could not be read: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    tally.logEventsRead += log.size;
    ledgers.of(sessionId).verifyAgainst(log);
    for (const follower of followers) {
      if (follower.sessionId !== sessionId || !follower.finished) continue;
      if (follower.cursor !== log.size) tally.violation(phase, `session ${sessionId}: a follower saw it end at seq ${follower.cursor}, but the log ends at ${log.size}.`);
    }
  }
}

/** Run `work` for every item, at most `limit` at a time. */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A time limit to race work against: its timer does not keep the process alive once the work is done. */
export const timeLimit = (ms: number) => new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), Math.max(0, ms)).unref());
