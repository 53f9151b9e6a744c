import { toSnapshot, type ErrorFrame, type SessionEvent, type SessionSnapshot } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { foldEvents } from '../support/session-stream.js';
import { useDurableScope } from './support/durable-scope.js';
import { startDurableServer, type DurableServer, type TempFolder } from './support/durable-server.js';
import { expectCompletedLog } from './support/log-checks.js';
import type { RawClient } from './support/raw-client.js';

/** Retention keeps about this many newest events per session (up to a quarter more between trims). */
const RETAIN = 10;

let folder: TempFolder;
const connectTo = useDurableScope((made) => (folder = made));
const connect = (server: DurableServer): Promise<RawClient> => connectTo(server.wsUrl);

/** A finished session on the server: its id and every event its creator received. */
async function finishedSession(server: DurableServer): Promise<{ sessionId: string; events: SessionEvent[]; texts: string[] }> {
  const creator = await connect(server);
  const sessionId = await creator.client.createSession('What is 17 * 23?');
  const events = await creator.client.untilFinished(sessionId, 15_000);
  expectCompletedLog(sessionId, events);
  return { sessionId, events, texts: creator.eventTexts(sessionId) };
}

/** Every cursor case of PROTOCOL.md §8.4 "Resuming from a cursor" and the README's error table, over a real WebSocket. */
async function expectDocumentedCursorAnswers(server: DurableServer, session: { sessionId: string; events: SessionEvent[]; texts: string[] }) {
  const { sessionId, events, texts } = session;
  const lastSeq = events.length;
  expect(lastSeq).toBeGreaterThan(RETAIN + RETAIN / 4 + 3);
  const client = await connect(server);

  for (const afterSeq of [-1, 1.5, lastSeq + 1]) {
    const answer = (await client.subscribe(sessionId, afterSeq)) as ErrorFrame;
    expect(answer, `afterSeq ${afterSeq}`).toMatchObject({ type: 'error', code: 'BAD_CURSOR' });
    expect(answer.message).toContain(`from 0 to ${lastSeq}`);
  }

  // A cursor older than what retention keeps: the whole session as a snapshot instead.
  const trimmed = (await client.subscribe(sessionId, 1)) as SessionSnapshot;
  const folded = toSnapshot(foldEvents(sessionId, events));
  expect(trimmed).toMatchObject({ type: 'session.snapshot', seq: lastSeq, session: { sessionId, status: 'completed' } });
  expect(trimmed.steps).toEqual(folded.steps);
  expect(trimmed.chain).toEqual(folded.chain);

  // A cursor within what is kept: session.subscribed, then exactly the later events, as first sent.
  const recent = await connect(server);
  expect(await recent.subscribe(sessionId, lastSeq - 3)).toMatchObject({ type: 'session.subscribed', afterSeq: lastSeq - 3, lastSeq });
  await recent.untilSeq(sessionId, lastSeq);
  expect(recent.eventTexts(sessionId)).toEqual(texts.slice(-3));

  // A cursor at the end: subscribed, and nothing to replay before the next answer.
  const current = await connect(server);
  expect(await current.subscribe(sessionId, lastSeq)).toMatchObject({ type: 'session.subscribed', afterSeq: lastSeq, lastSeq });
  expect(await current.subscribe(sessionId, -1)).toMatchObject({ type: 'error', code: 'BAD_CURSOR' });
  expect(current.eventTexts(sessionId)).toEqual([]);

  // None of the refusals closed a connection.
  for (const each of [client, recent, current]) expect(each.client.closeInfo).toBeUndefined();
}

describe('session.subscribe with afterSeq, served from the durable log with retention', () => {
  it('answers each bad cursor with BAD_CURSOR, a trimmed one with a snapshot and a kept one with a replay, before and after a restart', async () => {
    const env = { INTERTHOUGHT_DB: folder.file('sessions.db'), INTERTHOUGHT_RETAIN_EVENTS: String(RETAIN), INTERTHOUGHT_TOKEN_DELAY_MS: '0' };
    const first = await startDurableServer(env);
    const session = await finishedSession(first);
    await expectDocumentedCursorAnswers(first, session);
    expect(await first.stop()).toBe(0);

    // After a restart the session is read back from the file: its kept events and its snapshot.
    const second = await startDurableServer(env);
    await expectDocumentedCursorAnswers(second, session);
  });

  it('refuses a cursor that is not a number as BAD_FRAME, naming afterSeq', async () => {
    const server = await startDurableServer({ INTERTHOUGHT_DB: ':memory:', INTERTHOUGHT_TOKEN_DELAY_MS: '0' });
    expect(server.stdout()).toContain('Sessions are kept in memory only');
    const { sessionId } = await finishedSession(server);
    const client = await connect(server);
    const answer = await client.subscribe(sessionId, '3' as unknown as number);
    expect(answer).toMatchObject({ type: 'error', code: 'BAD_FRAME', details: [{ path: ['afterSeq'] }] });
  });
});
