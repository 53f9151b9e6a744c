import { FirehoseWorker } from '../bench/harness/worker-process.js';
import { ChaosSocket } from './chaos-socket.js';
import { readStoredSession } from './durable-log.js';
import type { PhaseContext } from './phase.js';
import { Ledgers } from './session-ledger.js';
import { checkAgainstLogs, createFirehoseSessions, sleep } from './sessions.js';
import { StreamFollower } from './stream-follower.js';

const PHASE = 'worker kills';
/** The token the run's server accepts on /ws/agents, and the name the workers serve the firehose under. */
export const CHAOS_WORKER_TOKEN = 'chaos-worker-token';
const WORKER_AGENT = 'firehose-worker';
const RESUME_POLL_MS = 150;

/**
 * Firehose sessions served by worker processes (`connectWorker`) over /ws/agents; at random
 * moments a worker gets SIGKILL and a new one takes its place. Its sessions must come back
 * `interrupted`, `session.resume` continues them on another worker, and every follower's stream
 * stays contiguous (nothing lost or duplicated) to the end, as the durable log has it.
 */
export async function runWorkerKills(context: PhaseContext): Promise<void> {
  const { tally, log, server } = context;
  const scale = context.scale.workerKills;
  const random = context.random.fork(PHASE);
  const deadline = performance.now() + scale.timeLimitMs;
  const workers: FirehoseWorker[] = [];
  const startWorker = async () => workers.push(await FirehoseWorker.start(server.httpUrl, CHAOS_WORKER_TOKEN, WORKER_AGENT));
  try {
    for (let i = 0; i < scale.workers; i++) await startWorker();
    const ledgers = new Ledgers(tally, PHASE);
    const sessionIds = await createFirehoseSessions(server.wsUrl, scale.sessions, scale.stream, WORKER_AGENT);
    const followers = sessionIds.flatMap((sessionId) => Array.from({ length: scale.followersPerSession }, () => new StreamFollower(sessionId, ledgers.of(sessionId), tally, PHASE)));
    const following = followers.map(async (follower) => {
      const end = await follower.follow(server.wsUrl);
      if (end.kind !== 'finished') tally.violation(PHASE, `session ${follower.sessionId}: a follower's stream ended without the session ending (${end.kind}).`);
    });
    const resuming = resumeInterrupted(context, sessionIds, followers, deadline);
    for (let kill = 1; kill <= scale.kills && performance.now() < deadline; kill++) {
      await sleep(random.int(scale.gapMs[0], scale.gapMs[1]));
      const live = workers.filter((worker) => worker.running);
      const victim = live[random.int(0, live.length - 1)];
      if (victim === undefined) break;
      await victim.kill();
      tally.workerKills += 1;
      log(`${PHASE}: kill -9 of worker #${kill}; starting another`);
      await startWorker();
    }
    await Promise.race([Promise.all(following), sleep(Math.max(0, deadline - performance.now()))]);
    await resuming;
    for (const sessionId of sessionIds) {
      const { status } = await readStoredSession(server.httpUrl, sessionId);
      if (status !== 'completed' && status !== 'interrupted') tally.violation(PHASE, `session ${sessionId} ended ${status}, not completed or interrupted.`);
    }
    for (const follower of followers) {
      if (!follower.finished) tally.violation(PHASE, `session ${follower.sessionId}: a follower did not see it end within ${scale.timeLimitMs} ms (at seq ${follower.cursor}).`);
    }
    log(`${PHASE}: comparing with the durable logs`);
    await checkAgainstLogs(server.wsUrl, ledgers, followers, tally, PHASE);
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

/** `session.resume` every session a lost worker left `interrupted`, until every follower saw its session end. */
async function resumeInterrupted(context: PhaseContext, sessionIds: readonly string[], followers: readonly StreamFollower[], deadline: number): Promise<void> {
  const { server, tally } = context;
  const control = await ChaosSocket.connect(server.wsUrl);
  try {
    while (performance.now() < deadline && !followers.every((follower) => follower.finished)) {
      for (const sessionId of sessionIds) {
        const { status } = await readStoredSession(server.httpUrl, sessionId);
        if (status !== 'interrupted') continue;
        try {
          await control.request({ type: 'session.resume', sessionId });
          tally.sessionResumes += 1;
        } catch (error) {
          // A resume that found no worker (they are all being replaced) is tried again next round.
          if (!/AGENT_UNAVAILABLE|no worker/iu.test(error instanceof Error ? error.message : String(error))) {
            tally.violation(PHASE, `session.resume of ${sessionId} failed: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
      }
      await sleep(RESUME_POLL_MS);
    }
  } finally {
    control.close();
  }
}
