import { SHARE_ENDED_CLOSE, type Hello, type SessionInfo, type SessionSnapshotData } from '@interthought/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NodeProcess } from '../support/cluster.js';
import { TEST_JWT_SECRET, signHs256 } from '../support/jwt.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { testServerEnv } from '../support/server-process.js';
import { TestClient, type CloseInfo } from '../support/ws-client.js';
import { ADA, BOB, OpenClients, ask, finishedSession, rest, shareLink, wsUrlWith, type TestUser } from './support/users.js';

/** Revocation crosses nodes through Redis: "at once", with room for a busy machine. */
const CLOSED_WITHIN_MS = 8_000;
/** A routed command is a few messages through Redis: far less than this, even on a busy machine. */
const ROUTED_WITHIN_MS = 5_000;

/** `call`, failing if it takes longer than `ROUTED_WITHIN_MS`. */
async function promptly<T>(what: string, call: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await call();
  const took = Date.now() - started;
  expect(took, `${what} took ${took} ms`).toBeLessThan(ROUTED_WITHIN_MS);
  return result;
}

function closedWithin(client: TestClient, what: string): Promise<CloseInfo> {
  return Promise.race([
    client.closed,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} was not closed within ${CLOSED_WITHIN_MS} ms`)), CLOSED_WITHIN_MS).unref()),
  ]);
}

function tokenFor(user: TestUser): Promise<string> {
  return signHs256({ sub: user.sub, name: user.name });
}

/*
 * Share links in cluster mode (PROTOCOL.md §21.3): two server processes on one real redis-server,
 * signing in with one HS256 secret. A link made on one node opens the session on the other (the
 * signing key is kept in Redis), and revoking it on either node ends its connections on both.
 */
describe('share links across two cluster nodes', () => {
  let redis: RedisServer;
  const nodes: NodeProcess[] = [];
  const clients = new OpenClients();
  const node = (index: 0 | 1): NodeProcess => nodes[index]!;

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = (id: string) =>
      testServerEnv({
        INTERTHOUGHT_REDIS_URL: `unix://${redis.socket}`,
        INTERTHOUGHT_NODE_ID: id,
        INTERTHOUGHT_AUTH: 'jwt',
        INTERTHOUGHT_JWT_SECRET: TEST_JWT_SECRET,
        INTERTHOUGHT_TOKEN_DELAY_MS: '0',
      });
    nodes.push(...(await Promise.all(['a', 'b'].map((id) => NodeProcess.start(id, env(id))))));
  }, 60_000);
  afterEach(() => clients.closeAll());
  afterAll(async () => {
    await Promise.all(nodes.map((each) => each.crash()));
    await redis?.stop();
  }, 30_000);

  it('opens a link made on node a on node b, confined to its session', async () => {
    const ada = await clients.connect(wsUrlWith(node(0), { token: await tokenFor(ADA) }));
    const sessionId = await finishedSession(ada);
    await finishedSession(ada, 'What is 6 + 1?');
    const { token, shareId } = await shareLink(ada, sessionId, 'viewer');
    const guest = await clients.connect(wsUrlWith(node(1), { share: token }));
    expect(((await guest.waitForType('hello')) as Hello).share).toEqual({ sessionId, shareId, role: 'viewer' });
    const snapshot = await ask(guest, { type: 'session.subscribe', sessionId });
    expect(snapshot).toMatchObject({ type: 'session.snapshot', session: { owner: { id: ADA.sub } } });
    const watching = (await ask(guest, { type: 'sessions.watch' })) as { sessions: SessionInfo[] };
    expect(watching.sessions.map((info) => info.sessionId)).toEqual([sessionId]);
    const stepId = (snapshot as SessionSnapshotData).chain.at(-1)!;
    expect(await ask(guest, { type: 'step.correct', sessionId, stepId, content: 'x' })).toMatchObject({ type: 'error', code: 'FORBIDDEN' });
    expect((await rest(node(1), `/api/sessions/${sessionId}`, { share: token })).status).toBe(200);

    // Ada on node b makes a link to the session node a runs: the command is routed there.
    const adaOnB = await clients.connect(wsUrlWith(node(1), { token: await tokenFor(ADA) }));
    const fromB = await promptly('session.share on node b', () => shareLink(adaOnB, sessionId, 'editor'));
    const editorOnA = await clients.connect(wsUrlWith(node(0), { share: fromB.token }));
    expect(((await editorOnA.waitForType('hello')) as Hello).share).toMatchObject({ sessionId, role: 'editor' });
  });

  it('ends a link’s connections on both nodes when it is revoked on either, live, with 4403', async () => {
    const ada = await clients.connect(wsUrlWith(node(0), { token: await tokenFor(ADA) }));
    const sessionId = await finishedSession(ada);
    const viewer = await shareLink(ada, sessionId, 'viewer');
    // Made on node b, for a session node a runs: the command goes to node a.
    const bearer = await tokenFor(ADA);
    const made = await promptly('POST …/shares on node b', () => rest(node(1), `/api/sessions/${sessionId}/shares`, { method: 'POST', bearer, body: { role: 'editor' } }));
    expect(made.status, made.text).toBe(201);
    const editor = made.body as { token: string; shareId: string };

    const viewerOnA = await clients.connect(wsUrlWith(node(0), { share: viewer.token }));
    const viewerOnB = await clients.connect(wsUrlWith(node(1), { share: viewer.token }));
    const editorOnA = await clients.connect(wsUrlWith(node(0), { share: editor.token }));
    const editorOnB = await clients.connect(wsUrlWith(node(1), { share: editor.token }));
    for (const holder of [viewerOnA, viewerOnB, editorOnA, editorOnB]) {
      expect(await ask(holder, { type: 'session.subscribe', sessionId })).toMatchObject({ type: 'session.snapshot' });
    }

    // Revoked over the WebSocket on node a.
    expect(await ask(ada, { type: 'session.unshare', sessionId, shareId: viewer.shareId })).toMatchObject({ type: 'session.unshared' });
    expect(await closedWithin(viewerOnA, 'the viewer on node a')).toEqual(SHARE_ENDED_CLOSE);
    expect(await closedWithin(viewerOnB, 'the viewer on node b')).toEqual(SHARE_ENDED_CLOSE);
    expect(editorOnA.closeInfo).toBeUndefined();
    expect(editorOnB.closeInfo).toBeUndefined();
    for (const each of [node(0), node(1)]) {
      await expect(TestClient.connect(wsUrlWith(each, { share: viewer.token }))).rejects.toThrow('Unexpected server response: 401');
      expect(await rest(each, `/api/sessions/${sessionId}`, { share: viewer.token })).toMatchObject({ status: 401, body: { message: expect.stringMatching(/revoked/) } });
    }

    // Revoked over REST on node b, which does not run the session.
    const revoked = await promptly('DELETE …/shares/:shareId on node b', () =>
      rest(node(1), `/api/sessions/${sessionId}/shares/${editor.shareId}`, { method: 'DELETE', bearer }),
    );
    expect(revoked.status, revoked.text).toBe(204);
    expect(await closedWithin(editorOnA, 'the editor on node a')).toEqual(SHARE_ENDED_CLOSE);
    expect(await closedWithin(editorOnB, 'the editor on node b')).toEqual(SHARE_ENDED_CLOSE);
    expect(await rest(node(0), `/api/sessions/${sessionId}`, { share: editor.token })).toMatchObject({ status: 401, body: { message: expect.stringMatching(/revoked/) } });
  });

  it('tells a list watcher on one node of its own sessions only, whichever node they change on', async () => {
    const bob = await clients.connect(wsUrlWith(node(1), { token: await tokenFor(BOB) }));
    const watching = (await ask(bob, { type: 'sessions.watch', limit: 100 })) as { sessions: SessionInfo[] };
    expect(watching.sessions.every((info) => info.owner?.id === BOB.sub)).toBe(true);
    const ada = await clients.connect(wsUrlWith(node(0), { token: await tokenFor(ADA) }));
    ada.send({ type: 'sessions.watch' });
    const adas = await finishedSession(ada, 'What is 11 + 11?');
    await ada.waitForType('sessions.changed', (frame) => frame.session.sessionId === adas && frame.session.status === 'completed');
    // Bob's own session, made on node a as Ada's was: its pushes reach node b after every push about hers.
    const bobOnA = await clients.connect(wsUrlWith(node(0), { token: await tokenFor(BOB) }));
    const bobs = await finishedSession(bobOnA, 'What is 12 + 12?');
    await bob.waitForType('sessions.changed', (frame) => frame.session.sessionId === bobs && frame.session.status === 'completed');
    const pushed = bob.frames.flatMap((frame) => (frame.type === 'sessions.changed' ? [frame.session.sessionId] : []));
    expect(new Set(pushed)).toEqual(new Set([bobs]));
  });
});
