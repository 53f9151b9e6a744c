import { ChaosSocket } from './chaos-socket.js';
import { ANSWERED_KINDS, CLOSING_KINDS, hostileFrame, type HostileFrame, type HostileKind } from './hostile-frame-kinds.js';
import type { PhaseContext } from './phase.js';
import type { HostileScale } from './scale.js';
import type { SeededRandom } from '../apps/server/test/support/seeded-random.js';
import { Ledgers } from './session-ledger.js';
import { checkAgainstLogs, createFirehoseSessions, eachLimited, sleep, timeLimit } from './sessions.js';
import { StreamFollower } from './stream-follower.js';
import type { ChaosTally } from './tally.js';
import { isSessionEvent, type WireFrame } from './wire-frame.js';

const PHASE = 'hostile frames';
/** The server's frame limit (its default, announced in hello.limits); its request limits are the defaults too (20/s, burst 40). */
const MAX_FRAME_BYTES = 65_536;
/** Paced connections send at most this often: under the default 20 requests/s, so every frame is judged on its own. */
const PACE_MS = 60;
const ANSWER_TIMEOUT_MS = 10_000;
/** Kinds cheap enough to send by the hundred in a burst. */
const BURST_KINDS: readonly HostileKind[] = ['invalid-json', 'unknown-type', 'wrong-types', 'unknown-session', 'binary', 'lone-surrogate'];
const DEMO_TASKS = ['What is 15% of 240?', 'A train travels 180 km in 2 hours. What is its average speed?', 'Convert 5 miles to kilometers.', 'What is 12 × 7 + 5?'];

type Outcome = { kind: 'answer'; raw: string; frame: WireFrame | undefined } | { kind: 'closed'; code: number } | { kind: 'timeout' };

function preview(frame: HostileFrame): string {
  const text = typeof frame.data === 'string' ? frame.data : frame.data.subarray(0, 40).toString('hex');
  return text.length > 160 ? `${text.slice(0, 160)}… (${text.length} chars)` : text;
}

/** Send one frame and wait for what answers it: the next frame that is not a session event, or a close. */
function sendAndAwait(socket: ChaosSocket, frame: HostileFrame): Promise<Outcome> {
  return new Promise((resolve) => {
    const done = (outcome: Outcome) => {
      clearTimeout(timer);
      socket.onFrame = undefined;
      socket.onClose = undefined;
      resolve(outcome);
    };
    const timer = setTimeout(() => done({ kind: 'timeout' }), ANSWER_TIMEOUT_MS);
    socket.onClose = (code) => done({ kind: 'closed', code });
    socket.onFrame = (raw, parsed) => {
      if (parsed !== undefined && isSessionEvent(parsed)) return;
      done({ kind: 'answer', raw, frame: parsed });
    };
    socket.ws.send(frame.data, { binary: frame.binary });
  });
}

function noteError(raw: string, frame: WireFrame | undefined, tally: ChaosTally): void {
  tally.errorsReceived += 1;
  tally.largestErrorFrame = Math.max(tally.largestErrorFrame, Buffer.byteLength(raw));
  if (frame?.code === 'INTERNAL') tally.violation(PHASE, `a hostile frame made the server fail (INTERNAL): ${frame.message}`);
}

function noteClose(code: number, tally: ChaosTally): void {
  tally.hostileCloses[code] = (tally.hostileCloses[code] ?? 0) + 1;
}

/** One connection sends hostile frames one at a time, under the rate limit; each must get an `error` or its documented close. */
async function pacedConnection(url: string, random: SeededRandom, frames: number, tally: ChaosTally): Promise<void> {
  const socket = await ChaosSocket.connect(url);
  tally.hostileConnections += 1;
  for (let i = 0; i < frames; i++) {
    const last = i === frames - 1;
    const frame = hostileFrame(random, last && random.chance(0.4) ? random.pick(CLOSING_KINDS) : random.pick(ANSWERED_KINDS), MAX_FRAME_BYTES);
    const sentAt = performance.now();
    const outcome = await sendAndAwait(socket, frame);
    tally.hostileFrames += 1;
    if (outcome.kind === 'timeout') {
      tally.violation(PHASE, `no answer within ${ANSWER_TIMEOUT_MS} ms to a ${frame.kind} frame: ${preview(frame)}`);
    } else if (outcome.kind === 'closed') {
      noteClose(outcome.code, tally);
      if (outcome.code !== frame.closes) tally.violation(PHASE, `the server closed with ${outcome.code} after a ${frame.kind} frame: ${preview(frame)}`);
      return;
    } else if (outcome.frame?.type === 'error') {
      noteError(outcome.raw, outcome.frame, tally);
    } else {
      tally.violation(PHASE, `a ${frame.kind} frame was carried out (answered ${outcome.frame?.type ?? outcome.raw.slice(0, 80)}): ${preview(frame)}`);
    }
    await sleep(Math.max(0, PACE_MS - (performance.now() - sentAt)));
  }
  if (random.chance(0.2)) socket.kill('destroy');
  else socket.close();
}

/** One connection sends far past the rate limit at once: `error` frames (RATE_LIMITED among them), then close 1008. */
async function burstConnection(url: string, random: SeededRandom, frames: number, tally: ChaosTally): Promise<void> {
  const socket = await ChaosSocket.connect(url);
  tally.hostileConnections += 1;
  let rateLimited = 0;
  socket.onFrame = (raw, frame) => {
    if (frame !== undefined && isSessionEvent(frame)) return;
    if (frame?.type !== 'error') {
      tally.violation(PHASE, `a burst frame was carried out (answered ${frame?.type ?? raw.slice(0, 80)}).`);
      return;
    }
    noteError(raw, frame, tally);
    if (frame.code === 'RATE_LIMITED') rateLimited += 1;
  };
  for (let i = 0; i < frames; i++) {
    const frame = hostileFrame(random, random.pick(BURST_KINDS), MAX_FRAME_BYTES);
    socket.ws.send(frame.data, { binary: frame.binary });
  }
  tally.hostileFrames += frames;
  const code = await Promise.race([socket.closed, timeLimit(ANSWER_TIMEOUT_MS)]);
  if (code === 'timeout') {
    tally.violation(PHASE, `a connection that sent ${frames} frames at once was not closed within ${ANSWER_TIMEOUT_MS} ms.`);
    socket.kill('destroy');
    return;
  }
  noteClose(code, tally);
  if (code !== 1008) tally.violation(PHASE, `a connection that sent ${frames} frames at once was closed with ${code}, not 1008.`);
  if (rateLimited === 0) tally.violation(PHASE, `a connection that sent ${frames} frames at once got no RATE_LIMITED error.`);
}

/** Demo sessions one after another, each followed from seq 1 to its end by a bystander. */
async function demoBystander(url: string, scale: HostileScale, ledgers: Ledgers, tally: ChaosTally, followers: StreamFollower[]): Promise<void> {
  for (let i = 0; i < scale.demoSessions; i++) {
    const creator = await ChaosSocket.connect(url);
    const created = await creator.request({ type: 'session.create', agent: 'demo', task: DEMO_TASKS[i % DEMO_TASKS.length], options: { tokenDelayMs: 2 } });
    creator.close();
    const sessionId = created.session?.sessionId ?? '';
    const follower = new StreamFollower(sessionId, ledgers.of(sessionId), tally, PHASE);
    followers.push(follower);
    await followUndisturbed(follower, url, tally);
  }
}

/** A bystander's one connection must see its session through: no close, no gap, the end. */
async function followUndisturbed(follower: StreamFollower, url: string, tally: ChaosTally): Promise<void> {
  const end = await follower.follow(url);
  if (end.kind !== 'finished') tally.violation(PHASE, `a bystander of session ${follower.sessionId} was disturbed: ${end.kind === 'closed' ? `closed with ${end.code}` : end.kind}.`);
  else if (follower.finalStatus !== 'completed') tally.violation(PHASE, `the bystander's session ${follower.sessionId} ended ${follower.finalStatus}, not completed.`);
}

/**
 * Many connections send seeded hostile frames (invalid JSON, wrong types, strings at the frame
 * limit, unknown types, lone surrogates, deep nesting, binary, bursts past the rate limit) while
 * bystanders stream a firehose session and demo sessions. The bystanders' streams must be
 * undisturbed, every bad frame must get an `error` or a documented close, and the server must live.
 */
export async function runHostileFrames(context: PhaseContext): Promise<void> {
  const { tally, log } = context;
  const scale = context.scale.hostile;
  const random = context.random.fork(PHASE);
  const { server } = context;
  const url = server.wsUrl;
  const ledgers = new Ledgers(tally, PHASE);
  const followers: StreamFollower[] = [];
  const [firehoseId = ''] = await createFirehoseSessions(url, 1, scale.bystander);
  const firehoseFollower = new StreamFollower(firehoseId, ledgers.of(firehoseId), tally, PHASE);
  followers.push(firehoseFollower);
  const bystanders = Promise.all([followUndisturbed(firehoseFollower, url, tally), demoBystander(url, scale, ledgers, tally, followers)]);
  log(`${PHASE}: ${scale.connections} paced and ${scale.burstConnections} burst connections against a bystander`);
  const attackers = [
    ...Array.from({ length: scale.connections }, (_, i) => () => pacedConnection(url, random.fork(`paced ${i}`), scale.framesPerConnection, tally)),
    ...Array.from({ length: scale.burstConnections }, (_, i) => () => burstConnection(url, random.fork(`burst ${i}`), scale.burstFrames, tally)),
  ];
  const attacks = eachLimited(attackers, attackers.length, async (attack) => {
    try {
      await attack();
    } catch (error) {
      tally.violation(PHASE, `a hostile connection failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  if ((await Promise.race([Promise.all([attacks, bystanders]), timeLimit(scale.timeLimitMs)])) === 'timeout') {
    tally.violation(PHASE, `the phase did not finish within ${scale.timeLimitMs} ms.`);
  }
  if (!server.running) return;
  const health = await fetch(`${server.httpUrl}/api/health`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
  if (health?.status !== 200) tally.violation(PHASE, `GET /api/health after the hostile frames answered ${health?.status ?? 'nothing'}.`);
  await checkAgainstLogs(url, ledgers, followers, tally, PHASE);
}
