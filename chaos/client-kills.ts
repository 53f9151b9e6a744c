import type { PhaseContext } from './phase.js';
import type { ClientKillScale } from './scale.js';
import type { SeededRandom } from '../apps/server/test/support/seeded-random.js';
import { Ledgers } from './session-ledger.js';
import { checkAgainstLogs, createFirehoseSessions, sleep } from './sessions.js';
import { StreamFollower, type ConnectionPlan } from './stream-follower.js';
import type { ChaosTally } from './tally.js';

const PHASE = 'client kills';

/** A kill point for one connection: after 0 … max events, by FIN or RST, sometimes after a stall. */
function planConnection(random: SeededRandom, scale: ClientKillScale): ConnectionPlan {
  const plan: ConnectionPlan = {
    killAfterEvents: random.int(0, scale.maxEventsBeforeKill),
    killKind: random.chance(0.25) ? 'reset' : 'destroy',
  };
  if (random.chance(scale.stallChance)) {
    plan.stallAfterEvents = random.int(1, scale.maxEventsBeforeKill);
    plan.stallMs = random.int(50, scale.maxStallMs);
  }
  return plan;
}

/** Follow one session to its end, dying at random points and resuming from the cursor each time. */
async function followWithKills(follower: StreamFollower, url: string, random: SeededRandom, scale: ClientKillScale, tally: ChaosTally, deadline: number): Promise<void> {
  while (!follower.finished && performance.now() < deadline) {
    const end = await follower.follow(url, planConnection(random, scale));
    if (end.kind === 'killed') {
      tally.clientKills += 1;
      await sleep(random.int(0, 20));
    } else if (end.kind === 'closed') {
      if (end.code === 4008) tally.slowConsumerCloses += 1;
      else tally.violation(PHASE, `session ${follower.sessionId}: the server closed a follower with ${end.code}.`);
    } else if (end.kind === 'unreachable') {
      tally.violation(PHASE, `a follower could not reconnect: ${end.error}`);
      await sleep(200);
    }
  }
}

/**
 * Many clients follow streaming sessions and die abruptly at random points (TCP destroy or RST,
 * before or during the replay, mid-stream); each reconnects and resumes with `afterSeq` = the last
 * seq it saw. Every stream must stay contiguous, and at the end match the durable log.
 */
export async function runClientKills(context: PhaseContext): Promise<void> {
  const { tally, log } = context;
  const scale = context.scale.clientKills;
  const random = context.random.fork(PHASE);
  const deadline = performance.now() + scale.timeLimitMs;
  const { server } = context;
  const ledgers = new Ledgers(tally, PHASE);
  const followers: StreamFollower[] = [];
  const killsBefore = tally.clientKills;
  for (let wave = 0; wave < scale.maxWaves && tally.clientKills - killsBefore < scale.minKills && performance.now() < deadline; wave++) {
    const sessionIds = await createFirehoseSessions(server.wsUrl, scale.sessions, scale.stream);
    const waveFollowers = sessionIds.flatMap((sessionId) => Array.from({ length: scale.followersPerSession }, () => new StreamFollower(sessionId, ledgers.of(sessionId), tally, PHASE)));
    followers.push(...waveFollowers);
    log(`${PHASE}: wave ${wave + 1}: ${sessionIds.length} sessions × ${scale.followersPerSession} followers`);
    await Promise.all(waveFollowers.map((follower, index) => followWithKills(follower, server.wsUrl, random.fork(`wave ${wave} follower ${index}`), scale, tally, deadline)));
    log(`${PHASE}: ${tally.clientKills - killsBefore} kills so far`);
  }
  for (const follower of followers) {
    if (!follower.finished) tally.violation(PHASE, `session ${follower.sessionId}: a follower did not see it end within ${scale.timeLimitMs} ms (at seq ${follower.cursor}).`);
    else if (follower.finalStatus !== 'completed') tally.violation(PHASE, `session ${follower.sessionId} ended ${follower.finalStatus}, not completed.`);
  }
  const kills = tally.clientKills - killsBefore;
  if (kills < scale.minKills) tally.violation(PHASE, `only ${kills} client kills within ${scale.timeLimitMs} ms; the run needs ${scale.minKills}.`);
  log(`${PHASE}: comparing with the durable logs`);
  await checkAgainstLogs(server.wsUrl, ledgers, followers, tally, PHASE);
}
