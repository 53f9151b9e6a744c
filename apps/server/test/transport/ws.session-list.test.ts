import type { SessionInfo } from '@interthought/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

describe('sessions.watch over the wire', () => {
  let server: RunningServer;
  const clients: TestClient[] = [];
  beforeAll(async () => {
    server = await startServer();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(() => server.close());

  async function connect(): Promise<TestClient> {
    const client = await TestClient.connect(server.wsUrl);
    clients.push(client);
    await client.waitForType('hello');
    return client;
  }

  it('answers with the newest sessions, then pushes what another connection creates, finishes and deletes', async () => {
    const [watcher, creator] = await Promise.all([connect(), connect()]);
    const before = await creator.createSession('What is 2 + 2?');
    await creator.untilFinished(before);
    const id = watcher.send({ type: 'sessions.watch', limit: 5 });
    const answer = await watcher.answerTo(id);
    expect(answer).toMatchObject({ type: 'sessions.watching', requestId: id });
    const listed = (answer as { sessions: SessionInfo[] }).sessions;
    expect(listed.length).toBeLessThanOrEqual(5);
    expect(listed[0]).toMatchObject({ sessionId: before, status: 'completed' });

    const sessionId = await creator.createSession('What is 6 * 7?');
    await watcher.waitForType('sessions.changed', (frame) => frame.session.sessionId === sessionId);
    await watcher.waitForType('sessions.changed', (frame) => frame.session.sessionId === sessionId && frame.session.status === 'completed');
    const deleted = creator.send({ type: 'session.delete', sessionId });
    await creator.answerTo(deleted);
    await watcher.waitForType('sessions.removed', (frame) => frame.sessionId === sessionId);
    // The watcher never subscribed: it got the list, not the session's events.
    expect(watcher.events(sessionId)).toEqual([]);
  });

  it('stops pushing after sessions.unwatch; a new watch starts from a fresh list that has what changed meanwhile', async () => {
    const [watcher, creator] = await Promise.all([connect(), connect()]);
    await watcher.answerTo(watcher.send({ type: 'sessions.watch' }));
    expect(await watcher.answerTo(watcher.send({ type: 'sessions.unwatch', id: 'u1' }))).toMatchObject({ type: 'sessions.unwatched', requestId: 'u1' });
    const sessionId = await creator.createSession('What is 3 * 3?');
    await creator.untilFinished(sessionId);
    expect(watcher.frames.filter((frame) => frame.type === 'sessions.changed' && frame.session.sessionId === sessionId)).toEqual([]);

    const again = await connect();
    const answer = await again.answerTo(again.send({ type: 'sessions.watch' }));
    expect((answer as { sessions: SessionInfo[] }).sessions.map((session) => session.sessionId)).toContain(sessionId);
  });

  it('refuses a limit out of range with BAD_FRAME naming it, and the connection goes on', async () => {
    const watcher = await connect();
    const refused = await watcher.answerTo(watcher.send({ type: 'sessions.watch', limit: 500 }));
    expect(refused).toMatchObject({ type: 'error', code: 'BAD_FRAME', details: [{ path: ['limit'] }] });
    expect(await watcher.answerTo(watcher.send({ type: 'sessions.watch', limit: 100 }))).toMatchObject({ type: 'sessions.watching' });
  });
});
