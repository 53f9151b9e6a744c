import type { Health, SessionEvent, SessionSnapshotData } from '@interthought/protocol';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterPerFile, eventually, expectContiguous, LEASE_TTL_MS, type LogEntry, type RecordingClient } from '../support/cluster.js';
import { usePostgresServer } from '../support/postgres-scope.js';

/*
 * Two node processes on one PostgreSQL database and one redis-server (not durable: Redis may lose
 * everything here): Postgres holds the sessions and their logs, Redis only leases, fan-out and
 * routed commands.
 */

const postgres = usePostgresServer();
let databaseUrl: string | undefined;
let admin: pg.Pool | undefined;
// Before the cluster's own beforeAll: the nodes read the database URL as they start.
beforeAll(async () => {
  databaseUrl = await postgres.current.createDatabase();
  admin = new pg.Pool({ connectionString: databaseUrl, max: 2 });
});
afterAll(async () => {
  await admin?.end();
});
const cluster = clusterPerFile({ nodes: ['a', 'b'], env: () => ({ INTERTHOUGHT_DATABASE_URL: databaseUrl! }) });

/** A sweep sees a lease missing twice, a TTL apart, before a session is taken over: at most TTL + 2 s after its owner died. */
const TAKEOVER_WITHIN_MS = LEASE_TTL_MS + 2_000;
const FINITE = 'firehose rate=200 count=400 step=50 size=16';
const LONGER = 'firehose rate=200 count=900 step=50 size=16';
const ENDLESS = 'firehose rate=200 count=1000000 step=50 size=16';

/** The session's log as Postgres holds it. */
async function log(sessionId: string): Promise<LogEntry[]> {
  const { rows } = await admin!.query<{ seq: string; json: string }>('SELECT seq, json FROM events WHERE session_id = $1 ORDER BY seq', [sessionId]);
  return rows.map((row) => ({ seq: Number(row.seq), frame: row.json }));
}

async function epochOf(sessionId: string): Promise<number> {
  const { rows } = await admin!.query<{ epoch: string }>('SELECT epoch FROM sessions WHERE id = $1', [sessionId]);
  return Number(rows[0]!.epoch);
}

async function follow(sessionId: string, client: RecordingClient, afterSeq = 0): Promise<void> {
  const { answer } = await client.request({ type: 'session.subscribe', sessionId, afterSeq });
  expect(answer.type).toBe('session.subscribed');
}

/** Every frame the client got of the session is the stored one, byte for byte, from `from + 1` on. */
async function expectSameAsLog(client: RecordingClient, sessionId: string, from = 0): Promise<void> {
  const stored = await log(sessionId);
  expectContiguous(stored.map((entry) => entry.seq));
  expect(client.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(stored.slice(from).map((entry) => entry.frame));
}

async function clusterHealth(id: string): Promise<NonNullable<Health['cluster']>> {
  const health = await cluster.node(id).health();
  if (health.cluster === undefined) throw new Error(`Node ${id} reports no cluster health`);
  return health.cluster;
}

describe('A cluster on Postgres + Redis', () => {
  it('runs a session created on a, watched and corrected from b; both nodes report the Postgres store', async () => {
    const onA = await cluster.connect('a');
    const onB = await cluster.connect('b');
    const sessionId = await onA.createSession(FINITE, { agent: 'firehose' });
    await follow(sessionId, onB);
    await Promise.all([onA.untilFinished(sessionId, 20_000), onB.untilFinished(sessionId, 20_000)]);
    await expectSameAsLog(onB, sessionId);
    await expectSameAsLog(onA, sessionId);

    const snapshot = await cluster.node('b').getJson<SessionSnapshotData>(`/api/sessions/${sessionId}`);
    const step = snapshot.steps.find((candidate) => candidate.stepId === snapshot.chain[0]);
    const corrected = await onB.request({ type: 'step.correct', sessionId, stepId: step!.stepId, content: 'Corrected on b.' });
    expect(corrected.answer).toMatchObject({ type: 'correction.accepted' });
    // The correction runs the session again from the corrected step, on whichever node claimed it.
    const before = (await log(sessionId)).length;
    const rerun = await onA.waitForStatus(sessionId, 'completed', 20_000, before);
    await onB.waitForSeq(sessionId, rerun.seq);
    await expectSameAsLog(onA, sessionId);
    await expectSameAsLog(onB, sessionId);
    const onAView = await cluster.node('a').getJson<SessionSnapshotData>(`/api/sessions/${sessionId}`);
    expect(onAView.steps.some((candidate) => candidate.content === 'Corrected on b.')).toBe(true);

    for (const id of ['a', 'b']) {
      expect((await cluster.node(id).health()).store).toMatchObject({ kind: 'postgres', ok: true });
      const metrics = await fetch(`${cluster.node(id).baseUrl}/api/metrics`).then((response) => response.text());
      expect(metrics).toContain('interthought_store_up{kind="postgres"} 1');
    }
  });

  it('takes a killed owner\'s running session over within TTL + 2 s, interrupted, and resumes it on the other node', async () => {
    const creator = await cluster.connect('a');
    const onB = await cluster.connect('b');
    const sessionId = await creator.createSession(FINITE, { agent: 'firehose' });
    await follow(sessionId, onB);
    await onB.waitForSeq(sessionId, 30);
    expect(await cluster.leaseHolder(sessionId)).toBe('a');

    const killedAt = Date.now();
    await cluster.node('a').crash();
    const interrupted = await onB.waitForStatus(sessionId, 'interrupted', TAKEOVER_WITHIN_MS + 10_000);
    expect(Date.now() - killedAt).toBeLessThan(TAKEOVER_WITHIN_MS);
    expect(await epochOf(sessionId)).toBe(2);
    const stored = await log(sessionId);
    expect(stored.at(-1)).toEqual({ seq: interrupted.seq, frame: expect.stringContaining('"status":"interrupted"') });

    const resume = await onB.request({ type: 'session.resume', sessionId });
    expect(resume.answer).toMatchObject({ type: 'session.status', status: 'running' });
    await onB.untilFinished(sessionId, 20_000);
    expectContiguous((await log(sessionId)).map((entry) => entry.seq));
    const back = await cluster.connect('b');
    await follow(sessionId, back, 0);
    await back.waitForSeq(sessionId, (await log(sessionId)).at(-1)!.seq);
    await expectSameAsLog(back, sessionId);
  });

  it('fences a zombie owner: a stalled node whose session was taken over writes nothing more', async () => {
    const creator = await cluster.connect('a');
    const onB = await cluster.connect('b');
    const sessionId = await creator.createSession(ENDLESS, { agent: 'firehose' });
    await follow(sessionId, onB);
    await onB.waitForSeq(sessionId, 20);
    const lostBefore = (await clusterHealth('a')).lostSessions;

    const owner = cluster.node('a');
    owner.signal('SIGSTOP');
    let interrupted: SessionEvent;
    try {
      interrupted = await onB.waitForStatus(sessionId, 'interrupted', TAKEOVER_WITHIN_MS + 10_000);
    } finally {
      owner.signal('SIGCONT');
    }
    // The zombie wakes with a run under way and events queued: whatever it tries is refused.
    await eventually(async () => ((await clusterHealth('a')).lostSessions > lostBefore ? true : undefined), 'node a to notice it lost the session');
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Its transaction was ended by the server while it slept: it goes on, it does not crash.
    expect(owner.alive).toBe(true);
    const stored = await log(sessionId);
    expectContiguous(stored.map((entry) => entry.seq));
    expect(stored.at(-1)?.seq).toBe(interrupted.seq);
    expect(await epochOf(sessionId)).toBe(2);
    await expectSameAsLog(onB, sessionId);
  });

  it('goes on through a FLUSHALL of Redis mid-stream: every event still there, cursor resumes gapless byte for byte on either node', async () => {
    const creator = await cluster.connect('a');
    const onB = await cluster.connect('b');
    const sessionId = await creator.createSession(LONGER, { agent: 'firehose' });
    await follow(sessionId, onB);
    await onB.waitForSeq(sessionId, 40);

    await cluster.admin.flushall();
    const [end] = await Promise.all([onB.untilFinished(sessionId, 30_000), creator.untilFinished(sessionId, 30_000)]);
    const status = end.filter((event) => event.type === 'session.status').at(-1);
    // The owner re-created its lease before any sweep counted the session orphaned: it ran to the end.
    expect(status).toMatchObject({ status: 'completed' });
    await expectSameAsLog(onB, sessionId);
    await expectSameAsLog(creator, sessionId);

    const stored = await log(sessionId);
    const cursor = Math.floor(stored.length / 2);
    for (const id of ['a', 'b']) {
      const back = await cluster.connect(id);
      await follow(sessionId, back, cursor);
      await back.waitForSeq(sessionId, stored.at(-1)!.seq);
      await expectSameAsLog(back, sessionId, cursor);
    }
  });

  it('keeps every session, event and share link through a FLUSHALL after both nodes stopped; the run that was going is marked interrupted', async () => {
    const onA = await cluster.connect('a');
    const done = await onA.createSession(FINITE, { agent: 'firehose' });
    await onA.untilFinished(done, 20_000);
    const shared = await fetch(`${cluster.node('a').baseUrl}/api/sessions/${done}/shares`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ role: 'viewer' }) });
    expect(shared.status).toBe(201);
    const { token } = (await shared.json()) as { token: string };
    const running = await onA.createSession(ENDLESS, { agent: 'firehose' });
    await onA.waitForSeq(running, 20);
    const before = { done: await log(done), running: (await log(running)).length };

    await Promise.all([cluster.node('a').crash(), cluster.node('b').crash()]);
    await cluster.admin.flushall();
    await Promise.all([cluster.restart('a'), cluster.restart('b')]);

    const onB = await cluster.connect('b');
    await eventually(async () => ((await cluster.node('b').getJson<SessionSnapshotData>(`/api/sessions/${running}`)).session.status === 'interrupted' ? true : undefined), 'the running session to be marked interrupted', TAKEOVER_WITHIN_MS + 10_000);
    expect(await log(done)).toEqual(before.done);
    const afterRestart = await log(running);
    expectContiguous(afterRestart.map((entry) => entry.seq));
    expect(afterRestart.length).toBeGreaterThan(before.running);
    expect(afterRestart.at(-1)?.frame).toContain('"status":"interrupted"');
    await follow(done, onB, 0);
    await onB.waitForSeq(done, before.done.at(-1)!.seq);
    await expectSameAsLog(onB, done);
    const viaLink = await fetch(`${cluster.node('b').baseUrl}/api/sessions/${done}?share=${encodeURIComponent(token)}`);
    expect(viaLink.status).toBe(200);
    const list = await cluster.node('a').getJson<{ sessions: Array<{ sessionId: string }> }>('/api/sessions?limit=100');
    expect(list.sessions.map((session) => session.sessionId)).toEqual(expect.arrayContaining([done, running]));
  });
});
