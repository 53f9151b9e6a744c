import type { ChaosServer } from './chaos-server.js';
import { ChaosSocket } from './chaos-socket.js';
import { readDurableLog, readStoredSession } from './durable-log.js';
import type { PhaseContext } from './phase.js';
import { Ledgers } from './session-ledger.js';
import { checkAgainstLogs, createFirehoseSessions, sleep, timeLimit } from './sessions.js';
import { StreamFollower } from './stream-follower.js';
import type { ChaosTally } from './tally.js';
import { FINAL_STATUSES, readFrame } from './wire-frame.js';

const PHASE = 'server restarts';

/** Lets followers wait while the server is down; `epoch` tells a close the run caused from one it did not. */
class ServerGate {
  epoch = 0;
  #up: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  down(): void {
    this.epoch += 1;
    this.#up = new Promise((resolve) => (this.#release = resolve));
  }

  up(): void {
    this.#release?.();
    this.#release = undefined;
  }

  whenUp(): Promise<void> {
    return this.#up;
  }
}

/** Follow one session through every kill -9: after each restart, resubscribe from the cursor. */
async function followAcrossRestarts(follower: StreamFollower, server: ChaosServer, gate: ServerGate, tally: ChaosTally, deadline: number): Promise<void> {
  while (!follower.finished && performance.now() < deadline) {
    await Promise.race([gate.whenUp(), timeLimit(deadline - performance.now())]);
    const epoch = gate.epoch;
    const end = await follower.follow(server.wsUrl);
    if (end.kind === 'finished' || gate.epoch !== epoch) continue;
    if (end.kind === 'closed' && end.code === 4008) tally.slowConsumerCloses += 1;
    else if (end.kind === 'closed') tally.violation(PHASE, `session ${follower.sessionId}: the server closed a follower with ${end.code} while no kill was under way.`);
    else if (end.kind === 'unreachable') tally.violation(PHASE, `a follower could not reach the running server: ${end.error}`);
    await sleep(50);
  }
}

/**
 * Right after a restart, before anything resumes: every event a client saw must be in the log
 * unchanged (events are written before they are sent), and every session whose run was in
 * flight must have come back `interrupted`. Returns those sessions.
 */
async function checkAfterRestart(server: ChaosServer, sessionIds: readonly string[], ledgers: Ledgers, tally: ChaosTally): Promise<string[]> {
  const interrupted: string[] = [];
  for (const sessionId of sessionIds) {
    try {
      const log = await readDurableLog(server.wsUrl, sessionId);
      tally.logEventsRead += log.size;
      ledgers.of(sessionId).verifyAgainst(log);
      const last = readFrame(log.get(log.size) ?? '{}');
      const stored = await readStoredSession(server.httpUrl, sessionId);
      const lastStatus = last?.type === 'session.status' ? last.status : undefined;
      if (lastStatus !== undefined && FINAL_STATUSES.has(lastStatus)) {
        if (stored.status !== lastStatus) tally.violation(PHASE, `session ${sessionId} ended ${lastStatus} before the kill but came back ${stored.status}.`);
      } else if (lastStatus === 'interrupted' && stored.status === 'interrupted') {
        interrupted.push(sessionId);
      } else {
        tally.violation(PHASE, `session ${sessionId} was running at the kill but came back ${stored.status} (its log ends with ${last?.type} ${lastStatus ?? ''}).`);
      }
    } catch (error) {
      tally.violation(PHASE, `session ${sessionId} could not be checked after the restart: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return interrupted;
}

/** `session.resume` each interrupted session: its run continues from the head of its chain. */
async function resumeSessions(wsUrl: string, sessionIds: readonly string[], tally: ChaosTally): Promise<void> {
  if (sessionIds.length === 0) return;
  const control = await ChaosSocket.connect(wsUrl);
  try {
    for (const sessionId of sessionIds) {
      try {
        await control.request({ type: 'session.resume', sessionId });
        tally.sessionResumes += 1;
      } catch (error) {
        tally.violation(PHASE, `session.resume of ${sessionId} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    control.close();
  }
}

/**
 * The server runs under load as a child process and is killed with SIGKILL mid-stream, again and
 * again, then started on the same SQLite file and port. Nothing a client saw may be lost; running
 * sessions come back `interrupted`; `session.resume` continues them to completion; followers
 * resume with `afterSeq` and their streams stay contiguous to the end.
 */
export async function runServerRestarts(context: PhaseContext): Promise<void> {
  const { tally, log } = context;
  const scale = context.scale.serverRestarts;
  const random = context.random.fork(PHASE);
  const deadline = performance.now() + scale.timeLimitMs;
  const { server } = context;
  const gate = new ServerGate();
  const ledgers = new Ledgers(tally, PHASE);
  const sessionIds: string[] = [];
  const followers: StreamFollower[] = [];
  const runs: Promise<void>[] = [];
  const addSessions = async (count: number) => {
    for (const sessionId of await createFirehoseSessions(server.wsUrl, count, scale.stream)) {
      sessionIds.push(sessionId);
      for (let i = 0; i < scale.followersPerSession; i++) {
        const follower = new StreamFollower(sessionId, ledgers.of(sessionId), tally, PHASE);
        followers.push(follower);
        runs.push(followAcrossRestarts(follower, server, gate, tally, deadline));
      }
    }
  };

  await addSessions(scale.initialSessions);
  for (let restart = 1; restart <= scale.restarts && performance.now() < deadline; restart++) {
    await sleep(random.int(scale.streamBeforeKillMs[0], scale.streamBeforeKillMs[1]));
    gate.down();
    context.probe.pause();
    await server.killAndRestart();
    tally.serverRestarts += 1;
    const interrupted = await checkAfterRestart(server, sessionIds, ledgers, tally);
    log(`${PHASE}: kill -9 #${restart}: restarted, ${interrupted.length} of ${sessionIds.length} sessions interrupted, resuming them`);
    gate.up();
    context.probe.watch(server.httpUrl);
    await resumeSessions(server.wsUrl, interrupted, tally);
    await addSessions(scale.sessionsPerRestart);
  }
  await Promise.all(runs);
  for (const follower of followers) {
    if (!follower.finished) tally.violation(PHASE, `session ${follower.sessionId}: a follower did not see it end within ${scale.timeLimitMs} ms (at seq ${follower.cursor}).`);
    else if (follower.finalStatus !== 'completed') tally.violation(PHASE, `session ${follower.sessionId} ended ${follower.finalStatus}, not completed.`);
  }
  log(`${PHASE}: comparing with the durable logs`);
  await checkAgainstLogs(server.wsUrl, ledgers, followers, tally, PHASE);
}
