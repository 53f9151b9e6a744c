import type { SessionEvent, SessionInfo } from '@interthought/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';
import { tempFolder } from './support/durable-server.js';
import { RecordingStore } from '../support/recording-store.js';
import { expectCompletedLog, range, seqsOf } from './support/log-checks.js';

let folder: ReturnType<typeof tempFolder>;
const stores: SqliteEventStore[] = [];
const servers: RunningServer[] = [];
const clients: TestClient[] = [];

beforeEach(() => {
  folder = tempFolder();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const server of servers.splice(0)) await server.close();
  for (const store of stores.splice(0)) await store.close();
  folder.cleanup();
});

function openStore(): SqliteEventStore {
  const store = openSqliteEventStore(folder.file('sessions.db'));
  stores.push(store);
  return store;
}

async function start(store: RecordingStore | SqliteEventStore, config: Parameters<typeof startServer>[0] = {}): Promise<RunningServer> {
  const server = await startServer({ tokenDelayMs: 20, ...config }, { store });
  servers.push(server);
  return server;
}

async function connect(server: RunningServer): Promise<TestClient> {
  const client = await TestClient.connect(server.wsUrl);
  clients.push(client);
  await client.waitForType('hello');
  return client;
}

async function request(client: TestClient, frame: Record<string, unknown>) {
  return client.answerTo(client.send(frame));
}

async function listedIds(server: RunningServer): Promise<string[]> {
  const page = (await (await fetch(`${server.baseUrl}/api/sessions`)).json()) as { sessions: SessionInfo[] };
  return page.sessions.map((info) => info.sessionId);
}

async function expectNothingStored(store: SqliteEventStore, sessionId: string): Promise<void> {
  expect(await store.getSession(sessionId)).toBeUndefined();
  expect(await store.readEvents(sessionId, 0)).toEqual([]);
  expect(await store.firstKeptSeq(sessionId)).toBeUndefined();
  expect(await store.readSnapshot(sessionId)).toBeUndefined();
}

describe('session.delete over the WebSocket', () => {
  it('ends every watcher\'s stream with session.deleted, answers the requester, stops the run and empties the store of it', async () => {
    const store = openStore();
    const server = await start(store, { maxSubscriptionsPerConnection: 1 });
    const creator = await connect(server);
    const sessionId = await creator.createSession('A shop sells pens at $1.25 each. How much do 12 pens cost after a 15% discount?');
    const watcher = await connect(server);
    expect(await request(watcher, { type: 'session.subscribe', sessionId })).toMatchObject({ type: 'session.snapshot' });
    await creator.waitFor((frame) => frame.type === 'step.delta' && frame.sessionId === sessionId && frame.seq >= 10);
    // A bystander session on the deleting connection shows the server streams on afterwards.
    const deleter = await connect(server);
    const bystander = await deleter.createSession('What is 17 * 23?');

    const answer = await request(deleter, { type: 'session.delete', id: 'del-1', sessionId });
    expect(answer).toEqual({ type: 'session.deleted', requestId: 'del-1', sessionId, seq: expect.any(Number), at: expect.any(String) });
    const { requestId: _requestId, ...plain } = answer as SessionEvent & { requestId: string };
    for (const client of [creator, watcher]) {
      await client.waitForType('session.deleted', (frame) => frame.sessionId === sessionId);
    }
    const bystanderEvents = await deleter.untilFinished(bystander, 20_000);
    expectCompletedLog(bystander, bystanderEvents);

    // session.deleted was each watcher's last event of the session, right after the ones before it.
    const created = creator.events(sessionId);
    expect(seqsOf(created)).toEqual(range(1, plain.seq));
    expect(created.at(-1)).toEqual(plain);
    expect(watcher.events(sessionId).at(-1)).toEqual(plain);
    expect(watcher.events(sessionId).filter((event) => event.type === 'session.deleted')).toHaveLength(1);
    await expectNothingStored(store, sessionId);
    expect(await listedIds(server)).toEqual([bystander]);

    for (const frame of [
      { type: 'session.subscribe', sessionId },
      { type: 'session.subscribe', sessionId, afterSeq: 0 },
      { type: 'session.unsubscribe', sessionId },
      { type: 'session.pause', sessionId },
      { type: 'session.resume', sessionId },
      { type: 'session.cancel', sessionId },
      { type: 'step.correct', sessionId, stepId: created[1]?.type === 'step.started' ? created[1].step.stepId : 'x', content: 'too late' },
      { type: 'session.delete', sessionId },
    ]) {
      expect(await request(creator, frame), frame.type).toMatchObject({ type: 'error', code: 'SESSION_NOT_FOUND' });
    }
    // The deleted session no longer counts against the creator's one subscription.
    expect(await request(creator, { type: 'session.subscribe', sessionId: bystander })).toMatchObject({ type: 'session.snapshot' });
    expect(creator.closeInfo).toBeUndefined();

    const rest = await fetch(`${server.baseUrl}/api/sessions/${sessionId}`);
    expect(rest.status).toBe(404);
    expect(await rest.json()).toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('refuses a malformed session.delete with BAD_FRAME and an unknown session with SESSION_NOT_FOUND, and the connection stays open', async () => {
    const server = await start(openStore());
    const client = await connect(server);
    expect(await request(client, { type: 'session.delete' })).toMatchObject({ type: 'error', code: 'BAD_FRAME', details: [{ path: ['sessionId'] }] });
    expect(await request(client, { type: 'session.delete', sessionId: 's', force: true })).toMatchObject({ type: 'error', code: 'BAD_FRAME' });
    expect(await request(client, { type: 'session.delete', sessionId: 'no-such-session' })).toMatchObject({ type: 'error', code: 'SESSION_NOT_FOUND' });
    const sessionId = await client.createSession('What is 2 + 2?', { options: { tokenDelayMs: 0 } });
    await client.untilFinished(sessionId);
    expect(client.closeInfo).toBeUndefined();
  });
});

describe('DELETE /api/sessions/:id', () => {
  it('answers 204 with no body, tells the watchers with session.deleted, and the session is gone everywhere', async () => {
    const store = openStore();
    const server = await start(store, { tokenDelayMs: 0 });
    const creator = await connect(server);
    const sessionId = await creator.createSession('What is 17 * 23?');
    const events = await creator.untilFinished(sessionId);
    const watcher = await connect(server);
    await request(watcher, { type: 'session.subscribe', sessionId, afterSeq: events.length });

    const response = await fetch(`${server.baseUrl}/api/sessions/${sessionId}`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    const expected = { type: 'session.deleted', sessionId, seq: events.length + 1, at: expect.any(String) };
    expect(await creator.waitForType('session.deleted')).toEqual(expected);
    expect(await watcher.waitForType('session.deleted')).toEqual(expected);

    await expectNothingStored(store, sessionId);
    expect(await listedIds(server)).toEqual([]);
    expect((await fetch(`${server.baseUrl}/api/sessions/${sessionId}`)).status).toBe(404);
    const again = await fetch(`${server.baseUrl}/api/sessions/${sessionId}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ code: 'SESSION_NOT_FOUND', message: expect.stringContaining(sessionId) });
  });

  it('deletes a session only the file holds, after a restart, without reading its log', async () => {
    const first = openStore();
    const before = await start(first, { tokenDelayMs: 0 });
    const client = await connect(before);
    const kept = await client.createSession('What is 5 * 5?');
    const removed = await client.createSession('What is 6 * 6?');
    await client.untilFinished(kept);
    await client.untilFinished(removed);
    await client.close();
    await before.close();
    await first.close();

    const store = new RecordingStore(openStore());
    const after = await start(store);
    const response = await fetch(`${after.baseUrl}/api/sessions/${removed}`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(store.logReads).toBe(0);
    await expectNothingStored(store.inner as SqliteEventStore, removed);
    expect(await listedIds(after)).toEqual([kept]);
  });

  it('answers an unknown id with 404 SESSION_NOT_FOUND as JSON', async () => {
    const server = await start(openStore());
    const response = await fetch(`${server.baseUrl}/api/sessions/no-such-session`, { method: 'DELETE' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await response.json()).toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });
});
