import { applyEvents, chainSteps, createSessionState, toSnapshot, type ServerMessage, type SessionEvent, type SessionSnapshotData, type SessionStatus } from '@interthought/protocol';
import { describe, expect, it, onTestFailed } from 'vitest';
import { SeededRandom } from '../support/seeded-random.js';
import { clusterPerFile, expectContiguous, NODE_IDS, requesterCopy, type RecordingClient } from '../support/cluster.js';

const cluster = clusterPerFile();

/** Set INTERTHOUGHT_CLUSTER_SEED to replay another run; a failure prints the seed and what was done. */
const SEED = Number(process.env.INTERTHOUGHT_CLUSTER_SEED ?? 20_261_201);
const SESSIONS = 5;
const FOLLOWERS_PER_SESSION = 4;
const ACTIONS = 40;
/** Owners killed (kill -9) during the run, each started again as a fresh node. */
const KILLS = 2;
/** The actions stop after this long even if some are left. */
const ACTIONS_WITHIN_MS = 12_000;
const FINAL_STATUSES: ReadonlySet<SessionStatus> = new Set(['completed', 'cancelled', 'failed']);

interface Segment {
  nodeId: string;
  client: RecordingClient;
}

/**
 * One client following one session from seq 1 to its end. When its node dies it comes back on
 * another with `afterSeq` = the last seq it got, as a real client does: its segments joined must
 * be the log, each seq once.
 */
class Follower {
  readonly segments: Segment[] = [];
  /** Its status requests (pause, resume, cancel): their answers are its copies of those events. */
  readonly statusRequests = new Set<string>();

  constructor(readonly sessionId: string) {}

  get current(): Segment {
    return this.segments.at(-1)!;
  }

  frames(): Array<{ raw: string; event: SessionEvent }> {
    return this.segments.flatMap((segment) => segment.client.eventFrames(this.sessionId));
  }

  cursor(): number {
    return this.frames().at(-1)?.event.seq ?? 0;
  }

  lastStatus(): SessionStatus | undefined {
    for (const { event } of this.frames().reverse()) if (event.type === 'session.status') return event.status;
    return undefined;
  }

  /** Until it has got `seq` (on its current connection, if its earlier ones did not get that far). */
  async waitForSeq(seq: number): Promise<void> {
    if (this.cursor() >= seq) return;
    await this.current.client.waitForSeq(this.sessionId, seq, 20_000);
  }

  async attach(nodeId: string): Promise<void> {
    const client = await cluster.connect(nodeId);
    const afterSeq = this.cursor();
    this.segments.push({ nodeId, client });
    const { answer } = await client.request({ type: 'session.subscribe', sessionId: this.sessionId, afterSeq });
    if (answer.type !== 'session.subscribed') throw new Error(`subscribing after ${afterSeq} on node ${nodeId} was answered ${JSON.stringify(answer)}`);
  }
}

interface TrackedSession {
  sessionId: string;
  followers: Follower[];
}

describe('A randomised run: firehose sessions, commands sent to random nodes, owners killed at random', () => {
  it(`keeps every client's seqs contiguous from its cursor and equal to the durable log, byte for byte (seed ${SEED})`, { timeout: 120_000 }, async () => {
    const random = new SeededRandom(SEED);
    const trace: string[] = [];
    onTestFailed(() => console.error(`Randomised cluster run, seed ${SEED}:\n${trace.join('\n')}`));
    const note = (line: string) => trace.push(`${new Date().toISOString().slice(11, 23)} ${line}`);

    const sessions: TrackedSession[] = [];
    for (let index = 0; index < SESSIONS; index++) {
      const task = `firehose rate=${random.int(150, 350)} count=${random.int(400, 900)} step=${random.int(40, 100)} size=${random.int(8, 64)}`;
      const creatorNode = random.pick(NODE_IDS);
      const creator = await cluster.connect(creatorNode);
      const sessionId = await creator.createSession(task, { agent: 'firehose' });
      note(`created ${sessionId} on ${creatorNode}: ${task}`);
      const first = new Follower(sessionId);
      first.segments.push({ nodeId: creatorNode, client: creator });
      const followers = [first];
      for (let more = 1; more < FOLLOWERS_PER_SESSION; more++) {
        const follower = new Follower(sessionId);
        await follower.attach(random.pick(NODE_IDS));
        followers.push(follower);
      }
      sessions.push({ sessionId, followers });
    }

    const killsAt = new Set<number>();
    while (killsAt.size < KILLS) killsAt.add(random.int(4, ACTIONS - 8));
    const started = Date.now();
    const answers: Array<{ follower: Follower; id: string; answer: ServerMessage }> = [];
    for (let step = 0; step < ACTIONS && Date.now() - started < ACTIONS_WITHIN_MS; step++) {
      await new Promise((resolve) => setTimeout(resolve, random.int(20, 150)));
      if (killsAt.has(step)) {
        await killAnOwner(random, sessions, note);
        continue;
      }
      const session = random.pick(sessions);
      const follower = random.pick(session.followers);
      const request = commandFor(random, follower);
      if (request === undefined) continue;
      const { id, answer } = await follower.current.client.request(request, 20_000);
      if (request.type !== 'step.correct') follower.statusRequests.add(id);
      answers.push({ follower, id, answer });
      note(`${request.type} ${session.sessionId} from ${follower.current.nodeId}: ${answer.type}${answer.type === 'error' ? ` ${answer.code}` : ''}`);
    }

    // Every session to its end: resumed while it is paused or interrupted, then waited for.
    await Promise.all(sessions.map((session) => finish(random, session, note)));
    for (const session of sessions) {
      const log = await cluster.log(session.sessionId);
      expectContiguous(log.map((entry) => entry.seq));
      const lastSeq = log.length;
      await Promise.all(session.followers.map((follower) => follower.waitForSeq(lastSeq)));
      const rest = await cluster.node(random.pick(NODE_IDS)).getJson<SessionSnapshotData>(`/api/sessions/${session.sessionId}`);
      expect(rest.seq).toBe(lastSeq);
      for (const follower of session.followers) expectFollowerMatchesLog(follower, log.map((entry) => entry.frame), rest);
    }
    // Every accepted correction is in the log: an answer never promises what was then dropped.
    for (const { follower, answer } of answers) {
      if (answer.type !== 'correction.accepted') continue;
      const corrected = (await cluster.log(follower.sessionId)).map((entry) => JSON.parse(entry.frame) as SessionEvent).filter((event) => event.type === 'step.corrected');
      expect(corrected.map((event) => event.step.stepId)).toContain(answer.newStepId);
    }
    // Each request got exactly one answer, and no client got an error it did not ask for.
    for (const { follower, id, answer } of answers) {
      const client = follower.segments.find((segment) => segment.client.frames.includes(answer))!.client;
      expect(client.frames.filter((frame) => 'requestId' in frame && frame.requestId === id)).toEqual([answer]);
    }
    for (const session of sessions) {
      for (const follower of session.followers) {
        for (const { client } of follower.segments) expect(client.frames.filter((frame) => frame.type === 'error' && frame.requestId === undefined)).toEqual([]);
      }
    }
    for (const id of NODE_IDS) expect((await cluster.node(id).health()).cluster?.redis).toBe('ready');
  });
});

/** A correction of a step on the chain the follower sees, or a status request; undefined when there is nothing to correct yet. */
function commandFor(random: SeededRandom, follower: Follower): Record<string, unknown> | undefined {
  const roll = random.next();
  const sessionId = follower.sessionId;
  if (roll < 0.4) {
    const info = { sessionId, task: '', agent: 'firehose', status: 'running' as const, revision: 0, createdAt: '' };
    const state = applyEvents(createSessionState(info), follower.frames().map((frame) => frame.event));
    const steps = chainSteps(state).filter((step) => step.status === 'completed' || step.status === 'corrected');
    if (steps.length === 0) return undefined;
    const step = random.pick(steps);
    return { type: 'step.correct', sessionId, stepId: step.stepId, content: `corrected from ${follower.current.nodeId} at seq ${state.seq}`, baseRevision: state.session.revision };
  }
  if (roll < 0.65) return { type: 'session.pause', sessionId };
  if (roll < 0.97) return { type: 'session.resume', sessionId };
  return { type: 'session.cancel', sessionId };
}

/** kill -9 the node that owns a random running session (any node if none runs), start it again afresh, and move its clients elsewhere. */
async function killAnOwner(random: SeededRandom, sessions: TrackedSession[], note: (line: string) => void): Promise<void> {
  const holders = (await Promise.all(sessions.map((session) => cluster.leaseHolder(session.sessionId)))).filter((holder): holder is string => holder !== undefined);
  const victim = holders.length > 0 ? random.pick(holders) : random.pick(NODE_IDS);
  note(`kill -9 node ${victim} (owners: ${holders.join(', ') || 'none'})`);
  await cluster.node(victim).crash();
  const moved = sessions.flatMap((session) => session.followers.filter((follower) => follower.current.nodeId === victim));
  const others = NODE_IDS.filter((id) => id !== victim);
  for (const follower of moved) {
    await follower.current.client.closed;
    const to = random.pick(others);
    note(`follower of ${follower.sessionId} back on ${to} after seq ${follower.cursor()}`);
    await follower.attach(to);
  }
  await cluster.restart(victim);
  note(`node ${victim} started again`);
}

async function finish(random: SeededRandom, session: TrackedSession, note: (line: string) => void): Promise<void> {
  const watcher = session.followers[0]!;
  for (let round = 0; round < 12; round++) {
    const status = watcher.lastStatus();
    if (status !== undefined && FINAL_STATUSES.has(status)) return;
    if (status === 'paused' || status === 'interrupted') {
      const follower = random.pick(session.followers);
      const { id, answer } = await follower.current.client.request({ type: 'session.resume', sessionId: session.sessionId }, 20_000);
      follower.statusRequests.add(id);
      note(`final resume ${session.sessionId} from ${follower.current.nodeId}: ${answer.type}${answer.type === 'error' ? ` ${answer.code}` : ''}`);
      continue;
    }
    const cursor = watcher.cursor();
    await watcher.current.client.waitFor(
      (frame) => frame.type === 'session.status' && frame.sessionId === session.sessionId && frame.seq > cursor,
      `the next status of ${session.sessionId} after seq ${cursor}`,
      30_000,
    );
  }
  throw new Error(`Session ${session.sessionId} did not finish: last status ${watcher.lastStatus()}`);
}

/**
 * The follower's segments joined are the log from seq 1, each frame as stored; a frame carrying
 * a requestId is the follower's own copy of a status change it asked for. Its fold is the session.
 */
function expectFollowerMatchesLog(follower: Follower, log: readonly string[], rest: SessionSnapshotData): void {
  const frames = follower.frames();
  expectContiguous(frames.map((frame) => frame.event.seq));
  expect(frames).toHaveLength(log.length);
  for (const { raw, event } of frames) {
    const stored = log[event.seq - 1]!;
    const requestId = (event as { requestId?: unknown }).requestId;
    if (typeof requestId === 'string') {
      expect(follower.statusRequests.has(requestId)).toBe(true);
      expect(raw).toBe(requesterCopy(stored, requestId));
    } else {
      expect(raw).toBe(stored);
    }
  }
  const state = applyEvents(createSessionState({ ...rest.session, status: 'running', revision: 0 }), frames.map((frame) => frame.event));
  expect(toSnapshot(state)).toEqual(rest);
}
