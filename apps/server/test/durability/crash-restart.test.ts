import type { SessionEvent, SessionInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { useDurableScope } from './support/durable-scope.js';
import { startDurableServer, type TempFolder } from './support/durable-server.js';
import { expectCompletedLog, expectWholeLog, range, seqsOf } from './support/log-checks.js';

const TASK = 'A shop sells pens at $1.25 each. How much do 12 pens cost after a 15% discount?';
/** The run has about 70 events; the crash comes once the client has seen this many, well before the end. */
const CRASH_AFTER_SEQ = 20;

let folder: TempFolder;
const connect = useDurableScope((made) => (folder = made));

const parse = (texts: readonly string[]): SessionEvent[] => texts.map((text) => JSON.parse(text) as SessionEvent);

describe('kill -9 mid-stream, then a restart on the same database file', () => {
  it('replays to a client exactly the events after its cursor, byte for byte, marks the run interrupted, and resume completes it', async () => {
    const env = { INTERTHOUGHT_DB: folder.file('sessions.db'), INTERTHOUGHT_TOKEN_DELAY_MS: '20' };
    const first = await startDurableServer(env);
    expect(first.stdout()).toContain(`Sessions are stored in ${folder.file('sessions.db')}\n`);
    const watcher = await connect(first.wsUrl);
    const sessionId = await watcher.client.createSession(TASK);
    await watcher.untilSeq(sessionId, CRASH_AFTER_SEQ);
    await first.crash();

    const seen = watcher.eventTexts(sessionId);
    const n = seen.length;
    expect(seqsOf(parse(seen))).toEqual(range(1, n));
    // Mid-stream for real: the run had not finished when the process died.
    expect(parse(seen).some((event) => event.type === 'session.status' && event.status !== 'running')).toBe(false);

    const second = await startDurableServer(env);
    expect(second.stdout()).toContain('1 session was running when the server last stopped: marked interrupted');
    const listed = (await (await fetch(`${second.url}/api/sessions`)).json()) as { sessions: SessionInfo[] };
    expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, task: TASK, status: 'interrupted' })]);

    // The client that had seen seq n picks up after it: every event written after n, once, in order.
    const resumed = await connect(second.wsUrl);
    const subscribed = await resumed.subscribe(sessionId, n);
    expect(subscribed).toMatchObject({ type: 'session.subscribed', sessionId, afterSeq: n });
    const lastSeq = (subscribed as { lastSeq: number }).lastSeq;
    expect(lastSeq).toBeGreaterThan(n);
    await resumed.untilSeq(sessionId, lastSeq);
    const replay = resumed.eventTexts(sessionId);

    // The durable log, as a fresh subscriber from 0 gets it.
    const fresh = await connect(second.wsUrl);
    expect(await fresh.subscribe(sessionId, 0)).toMatchObject({ type: 'session.subscribed', afterSeq: 0, lastSeq });
    await fresh.untilSeq(sessionId, lastSeq);
    const log = fresh.eventTexts(sessionId);
    expect(log).toHaveLength(lastSeq);
    expect(log.slice(0, n)).toEqual(seen);
    expect(replay).toEqual(log.slice(n));
    const state = expectWholeLog(sessionId, parse(log));
    expect(parse(log).at(-1)).toMatchObject({ type: 'session.status', status: 'interrupted', seq: lastSeq });
    expect(state.session.status).toBe('interrupted');

    // Resume continues from the head of the chain (finishing a step the crash left streaming first), to a final answer.
    const answer = await resumed.request({ type: 'session.resume', sessionId });
    expect(answer).toMatchObject({ type: 'session.status', sessionId, status: 'running' });
    const danglingStep = state.chain.some((stepId) => state.steps.get(stepId)?.status === 'streaming');
    expect((answer as SessionEvent).seq).toBe(lastSeq + (danglingStep ? 2 : 1));
    await resumed.client.untilFinished(sessionId, 30_000);
    const whole = resumed.events(sessionId);
    const done = expectCompletedLog(sessionId, [...parse(log.slice(0, n)), ...whole]);
    // Nothing before the crash was redone: the steps it had finished are still the chain's first steps.
    const before = expectWholeLog(sessionId, parse(seen));
    const finishedBefore = [...before.steps.values()].filter((step) => step.status === 'completed').map((step) => step.stepId);
    expect(done.chain.slice(0, finishedBefore.length)).toEqual(finishedBefore);

    expect(await second.stop()).toBe(0);
  });

  it('keeps a session that finished before the crash as it was, and lists every session from the store', async () => {
    const env = { INTERTHOUGHT_DB: folder.file('sessions.db'), INTERTHOUGHT_TOKEN_DELAY_MS: '0' };
    const first = await startDurableServer(env);
    const client = await connect(first.wsUrl);
    const finished = await client.client.createSession('What is 17 * 23?');
    const events = await client.client.untilFinished(finished, 15_000);
    await first.crash();

    const second = await startDurableServer(env);
    expect(second.stdout()).not.toContain('marked interrupted');
    const fresh = await connect(second.wsUrl);
    const snapshot = await fresh.subscribe(finished);
    const folded = expectCompletedLog(finished, events);
    expect(snapshot).toMatchObject({ type: 'session.snapshot', seq: events.length, session: { status: 'completed' }, chain: folded.chain });
    const listed = (await (await fetch(`${second.url}/api/sessions`)).json()) as { sessions: SessionInfo[] };
    expect(listed.sessions.map((info) => [info.sessionId, info.status])).toEqual([[finished, 'completed']]);
  });
});
