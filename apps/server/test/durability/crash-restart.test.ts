import type { SessionEvent, SessionInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { useDurableScope } from './support/durable-scope.js';
import { startDurableServer, type TempFolder } from './support/durable-server.js';
import { crashMidStream, parseEvents } from './support/crash-mid-stream.js';
import { expectCompletedLog, expectWholeLog } from './support/log-checks.js';

let folder: TempFolder;
const connect = useDurableScope((made) => (folder = made));

const parse = parseEvents;

describe('kill -9 mid-stream, then a restart on the same database file', () => {
  it('replays to a client exactly the events after its cursor, byte for byte, marks the run interrupted, and resume completes it', async () => {
    const env = { INTERTHOUGHT_DB: folder.file('sessions.db'), INTERTHOUGHT_TOKEN_DELAY_MS: '20' };
    const { second, sessionId, seen, resumed, lastSeq, log } = await crashMidStream(env, connect, `Sessions are stored in ${folder.file('sessions.db')}\n`);
    const n = seen.length;
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
