import type { SessionEvent, SessionInfo, SessionSnapshotData } from '@interthought/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_BODY_LIMIT } from '../../src/http/export-routes.js';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';
import {
  CORRECTED_ANSWER,
  exportOf,
  finishedSession,
  importBody,
  linesOf,
  listedIds,
  rejectedThenCorrectedSession,
  snapshotOf,
} from './support/exported-sessions.js';

/** The snapshot as another session id would have it: what an import must fold to. */
function withSessionId(snapshot: SessionSnapshotData, sessionId: string): SessionSnapshotData {
  return { ...snapshot, session: { ...snapshot.session, sessionId } };
}

async function imported(server: RunningServer, body: string, contentType?: string): Promise<SessionInfo> {
  const response = await importBody(server, body, contentType);
  const answer = (await response.json()) as { session: SessionInfo };
  expect(response.status, JSON.stringify(answer)).toBe(201);
  return answer.session;
}

// POST /api/sessions/import (PROTOCOL.md §20.5) against a real server running the demo agent.
describe('POST /api/sessions/import', () => {
  let server: RunningServer;
  let client: TestClient;
  beforeAll(async () => {
    server = await startServer();
    client = await TestClient.connect(server.wsUrl);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('round trip: the import folds to the export’s snapshot but for its new id, is listed and told to list watchers', async () => {
    const sessionId = await rejectedThenCorrectedSession(client);
    const exported = await (await exportOf(server, sessionId)).text();
    const watcher = await TestClient.connect(server.wsUrl);
    watcher.send({ type: 'sessions.watch' });
    await watcher.waitForType('sessions.watching');

    const session = await imported(server, exported);
    expect(session.sessionId).not.toBe(sessionId);
    const original = await snapshotOf(server, sessionId);
    expect(session).toEqual(withSessionId(original, session.sessionId).session);
    expect(await snapshotOf(server, session.sessionId)).toEqual(withSessionId(original, session.sessionId));
    expect(await listedIds(server)).toContain(session.sessionId);
    expect(await watcher.waitForType('sessions.changed', (frame) => frame.session.sessionId === session.sessionId)).toMatchObject({ session });

    // Every event re-stamped with the new id, nothing else changed (step ids are kept).
    const again = linesOf(await (await exportOf(server, session.sessionId)).text()).slice(1);
    const before = linesOf(exported).slice(1).map((line) => ({ ...(JSON.parse(line) as SessionEvent), sessionId: session.sessionId }));
    expect(again.map((line) => JSON.parse(line) as SessionEvent)).toEqual(before);
    await watcher.close();
  });

  it('imports a session that can go on: a correction of its answer regenerates like on the original', async () => {
    const sessionId = await finishedSession(client);
    const session = await imported(server, await (await exportOf(server, sessionId)).text());
    client.send({ type: 'session.subscribe', sessionId: session.sessionId });
    const { chain, seq } = await client.waitForType('session.snapshot', (frame) => frame.session.sessionId === session.sessionId);
    const id = client.send({ type: 'step.correct', sessionId: session.sessionId, stepId: chain.at(-1)!, content: CORRECTED_ANSWER });
    expect(await client.answerTo(id)).toMatchObject({ type: 'correction.accepted', sessionId: session.sessionId, revision: 1 });
    await client.waitFor((frame) => frame.type === 'session.status' && frame.sessionId === session.sessionId && frame.status === 'completed' && frame.seq > seq, 'the imported session to finish');
  });

  it('imports a session waiting for approval as waiting: its call can be approved by the same step id', async () => {
    const sessionId = await client.createSession('What is 12 * 12?', { options: { approve: 'all' } });
    const requested = await client.waitForType('approval.requested', (frame) => frame.sessionId === sessionId);
    await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'waiting');
    const session = await imported(server, await (await exportOf(server, sessionId)).text());
    expect(session.status).toBe('waiting');
    client.send({ type: 'session.subscribe', sessionId: session.sessionId });
    await client.waitForType('session.snapshot', (frame) => frame.session.sessionId === session.sessionId);
    const approve = client.send({ type: 'tool.approve', sessionId: session.sessionId, stepId: requested.stepId });
    expect(await client.answerTo(approve)).toMatchObject({ type: 'approval.resolved', sessionId: session.sessionId, decision: 'approved' });
    await client.untilFinished(session.sessionId);
  });

  it('imports a session exported while running, or paused, as interrupted (one more event)', async () => {
    for (const pause of [false, true]) {
      const sessionId = await client.createSession('What is 15% of 240?', { options: { tokenDelayMs: 30 } });
      await client.waitForType('step.delta', (frame) => frame.sessionId === sessionId);
      if (pause) await client.answerTo(client.send({ type: 'session.pause', sessionId }));
      const lines = linesOf(await (await exportOf(server, sessionId)).text());
      await client.answerTo(client.send({ type: 'session.cancel', sessionId }));
      const session = await imported(server, lines.join('\n'));
      expect(session.status).toBe('interrupted');
      const events = linesOf(await (await exportOf(server, session.sessionId)).text()).slice(1).map((line) => JSON.parse(line) as SessionEvent);
      expect(events).toHaveLength(lines.length);
      expect(events.at(-1)).toMatchObject({ type: 'session.status', seq: lines.length, status: 'interrupted' });
      expect((await snapshotOf(server, session.sessionId)).session.status).toBe('interrupted');
    }
  });

  it('reads the export as text/plain or application/octet-stream too, with CRLF lines and empty lines at the end', async () => {
    const sessionId = await finishedSession(client, 'What is 6 * 7?');
    const lines = linesOf(await (await exportOf(server, sessionId)).text());
    expect((await imported(server, lines.join('\n'), 'text/plain')).task).toBe('What is 6 * 7?');
    expect((await imported(server, `${lines.join('\r\n')}\r\n\r\n\n`, 'application/octet-stream')).task).toBe('What is 6 * 7?');
  });

  describe('refuses a bad file whole with 400 BAD_IMPORT naming its first bad line', () => {
    let lines: string[];
    let sessionId: string;
    beforeAll(async () => {
      sessionId = await finishedSession(client, 'What is 9 + 10?');
      lines = linesOf(await (await exportOf(server, sessionId)).text());
    });

    const replaced = (index: number, line: string): string => lines.map((each, at) => (at === index ? line : each)).join('\n');
    const headerWith = (change: Record<string, unknown>): string => replaced(0, JSON.stringify({ ...(JSON.parse(lines[0]!) as object), ...change }));
    const eventWith = (index: number, change: Record<string, unknown>): string => replaced(index, JSON.stringify({ ...(JSON.parse(lines[index]!) as object), ...change }));

    /** The line after the export's last one (where a line is added). */
    const AFTER_LAST = 0;
    const cases: [string, () => string, number, RegExp][] = [
      ['an empty file', () => '', 1, /empty/],
      ['a file of empty lines', () => '\n\n\r\n', 1, /empty/],
      ['a header of another type', () => headerWith({ type: 'session.snapshot' }), 1, /not an Interthought export header/],
      ['a header of another version', () => headerWith({ version: 2 }), 1, /version 2/],
      ['a header without a session', () => headerWith({ session: undefined }), 1, /session/],
      ['a header with options a session cannot have', () => headerWith({ options: { tokenDelayMs: -1 } }), 1, /options\.tokenDelayMs/],
      ['a header with an unknown option', () => headerWith({ options: { colour: 'red' } }), 1, /colour/],
      ['only a header', () => lines[0]!, 2, /no events/],
      ['bad JSON on line 3', () => replaced(2, '{"type":"step.delta",'), 3, /Line 3 is not JSON/],
      ['a line that is not an object', () => replaced(3, '[1,2,3]'), 4, /not a JSON object/],
      ['an empty line between events', () => replaced(4, ''), 5, /Line 5 is empty/],
      ['an event of a type no log holds', () => replaced(2, '{"type":"hello"}'), 3, /not a session event/],
      ['an event that fails its schema', () => eventWith(1, { status: 'asleep' }), 2, /status/],
      ['a delta for a step that does not exist', () => eventWith(3, { stepId: 'no-such-step' }), 4, /does not fit.*unknown step no-such-step/],
      ['a gap in the seqs', () => [...lines.slice(0, 3), ...lines.slice(4)].join('\n'), 4, /Expected seq 3 but got 4/],
      ['an event of another session', () => eventWith(5, { sessionId: 'someone-else' }), 6, /someone-else/],
      ['a session.deleted line', () => `${lines.join('\n')}\n${JSON.stringify({ type: 'session.deleted', sessionId, seq: lines.length, at: new Date().toISOString() })}`, AFTER_LAST, /session\.deleted/],
    ];

    it.each(cases)('%s', async (_what, body, line, message) => {
      const before = await listedIds(server);
      const response = await importBody(server, body());
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { code: string; message: string; line: number };
      expect(answer).toEqual({ code: 'BAD_IMPORT', message: expect.stringMatching(message), line: line === AFTER_LAST ? lines.length + 1 : line });
      expect(await listedIds(server)).toEqual(before);
    });

    it('refuses a JSON body that is not NDJSON, and a body over the limit, storing nothing', async () => {
      const before = await listedIds(server);
      const json = await importBody(server, lines[0]!, 'application/json');
      expect(json.status).toBe(400);
      expect(await json.json()).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('application/x-ndjson') });
      const huge = await importBody(server, `${lines.join('\n')}\n${' '.repeat(IMPORT_BODY_LIMIT)}`);
      expect(huge.status).toBe(413);
      expect(await huge.json()).toMatchObject({ code: 'BAD_REQUEST' });
      expect(await listedIds(server)).toEqual(before);
    });
  });
});

describe('export and import behind the token and the Origin rule', () => {
  const TOKEN = 'open-sesame-42';
  let server: RunningServer;
  let sessionId: string;
  beforeAll(async () => {
    server = await startServer({ token: TOKEN });
    const client = await TestClient.connect(`${server.wsUrl}?token=${TOKEN}`);
    sessionId = await finishedSession(client);
    await client.close();
  });
  afterAll(() => server.close());

  it('answers 401 without the token and exports with it, as a Bearer header or ?token=', async () => {
    for (const format of ['json', 'md']) {
      const refused = await fetch(`${server.baseUrl}/api/sessions/${sessionId}/export?format=${format}`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'UNAUTHORIZED' });
      expect((await fetch(`${server.baseUrl}/api/sessions/${sessionId}/export?format=${format}`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
      expect((await fetch(`${server.baseUrl}/api/sessions/${sessionId}/export?format=${format}&token=${TOKEN}`)).status).toBe(200);
    }
  });

  it('imports only with the token, and never for a page of a foreign origin', async () => {
    const authorization = { authorization: `Bearer ${TOKEN}` };
    const body = await (await fetch(`${server.baseUrl}/api/sessions/${sessionId}/export`, { headers: authorization })).text();
    const list = async () => ((await (await fetch(`${server.baseUrl}/api/sessions`, { headers: authorization })).json()) as { sessions: unknown[] }).sessions.length;
    const before = await list();
    expect((await importBody(server, body)).status).toBe(401);
    expect((await importBody(server, body, 'application/x-ndjson', { ...authorization, origin: 'https://evil.example' })).status).toBe(403);
    expect(await list()).toBe(before);
    expect((await importBody(server, body, 'application/x-ndjson', authorization)).status).toBe(201);
    expect(await list()).toBe(before + 1);
  });
});
