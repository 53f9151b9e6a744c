import type { Hello, SessionEvent, SessionInfo, SessionSnapshotData, ShareRecord } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { TestClient } from '../support/ws-client.js';
import { ADA, BOB, ask, finishedSession, listedIds, missingIdLike, refusal, rest, shareLink, withoutId, wsUrlWith, type TestUser, useUserServer } from './support/users.js';

/*
 * Share links (PROTOCOL.md §21.3) on a real server that requires a sign-in: how an owner makes
 * them, and what a link lets its holder reach — its one session, live and over REST, and nothing else.
 */
describe('share links: making them, and what they open', () => {
  const env = useUserServer();
  const { clients } = env;

  async function connectAs(user: TestUser): Promise<TestClient> {
    return clients.connect(wsUrlWith(env.users.server, { token: await env.users.tokenFor(user) }));
  }

  function connectWithLink(token: string): Promise<TestClient> {
    return clients.connect(wsUrlWith(env.users.server, { share: token }));
  }

  it('makes a link over the WebSocket: the token and the page URL in the answer only, share.created in the log without it', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const shared = await shareLink(ada, sessionId, 'viewer', 86_400);
    expect(shared).toMatchObject({ sessionId, shareId: expect.any(String), role: 'viewer', expiresAt: expect.any(String), token: expect.any(String) });
    expect(Date.parse(shared.expiresAt!) - Date.now()).toBeGreaterThan(86_000_000);
    expect(shared.url).toBe(`${env.users.server.baseUrl}/sessions/${sessionId}?share=${encodeURIComponent(shared.token)}`);

    const created = (await ada.waitForType('share.created', (frame) => frame.sessionId === sessionId)) as SessionEvent & { share: ShareRecord };
    expect(created.share).toEqual({ shareId: shared.shareId, role: 'viewer', createdAt: expect.any(String), expiresAt: shared.expiresAt, by: ADA.sub, byName: ADA.name });
    expect(JSON.stringify(created)).not.toContain(shared.token);
    const exported = await rest(env.users.server, `/api/sessions/${sessionId}/export?format=json`, { bearer: await env.users.tokenFor(ADA) });
    expect(exported.text).toContain('"share.created"');
    expect(exported.text).not.toContain(shared.token);
  });

  it('makes a link over REST, lists the links without their tokens, and snapshots carry them', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const bearer = await env.users.tokenFor(ADA);
    const viewer = await shareLink(ada, sessionId, 'viewer');
    const made = await rest(env.users.server, `/api/sessions/${sessionId}/shares`, { method: 'POST', bearer, body: { role: 'editor', expiresInSec: 3_600 } });
    expect(made.status, made.text).toBe(201);
    const editor = made.body as { shareId: string; token: string; url: string; role: string; expiresAt: string };
    expect(editor).toMatchObject({ sessionId, role: 'editor', expiresAt: expect.any(String) });
    expect(editor.url).toBe(`${env.users.server.baseUrl}/sessions/${sessionId}?share=${encodeURIComponent(editor.token)}`);
    expect(viewer.expiresAt).toBeUndefined();

    const listed = await rest(env.users.server, `/api/sessions/${sessionId}/shares`, { bearer });
    expect(listed.status).toBe(200);
    const shares = (listed.body as { shares: ShareRecord[] }).shares;
    expect(shares.map((share) => [share.shareId, share.role])).toEqual([
      [viewer.shareId, 'viewer'],
      [editor.shareId, 'editor'],
    ]);
    expect(listed.text).not.toContain(viewer.token);
    expect(listed.text).not.toContain(editor.token);
    expect(await rest(env.users.server, `/api/sessions/${sessionId}/shares`, { method: 'POST', bearer, body: { role: 'owner' } })).toMatchObject({ status: 400 });

    const snapshot = (await rest(env.users.server, `/api/sessions/${sessionId}`, { bearer })).body as SessionSnapshotData;
    expect(snapshot.shares).toEqual(shares);
    const again = await connectAs(ADA);
    expect(await ask(again, { type: 'session.subscribe', sessionId })).toMatchObject({ type: 'session.snapshot', shares });
  });

  it('lets a client with no sign-in in with a link alone: hello.share, subscribe, replay, snapshot and export', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const { token, shareId } = await shareLink(ada, sessionId, 'viewer');
    await expect(TestClient.connect(env.users.server.wsUrl)).rejects.toThrow('Unexpected server response: 401');

    const guest = await connectWithLink(token);
    const hello = (await guest.waitForType('hello')) as Hello;
    expect(hello.share).toEqual({ sessionId, shareId, role: 'viewer' });
    expect(hello.user).toBeUndefined();
    const snapshot = await ask(guest, { type: 'session.subscribe', sessionId });
    expect(snapshot).toMatchObject({ type: 'session.snapshot', session: { sessionId, status: 'completed', owner: { id: ADA.sub } } });
    const replay = await ask(guest, { type: 'session.subscribe', sessionId, afterSeq: 0 });
    expect(replay).toMatchObject({ type: 'session.subscribed', sessionId, afterSeq: 0 });
    const lastSeq = (replay as { lastSeq: number }).lastSeq;
    await guest.waitFor((frame) => frame.type === 'share.created' && frame.sessionId === sessionId && frame.seq === lastSeq, 'the replay to reach lastSeq');
    expect(guest.events(sessionId).filter((event) => event.seq <= lastSeq).map((event) => event.seq)).toEqual(Array.from({ length: lastSeq }, (_, index) => index + 1));

    for (const path of [`/api/sessions/${sessionId}`, `/api/sessions/${sessionId}/export?format=json`, `/api/sessions/${sessionId}/export?format=md`]) {
      expect((await rest(env.users.server, path, { share: token })).status, `${path} with X-Interthought-Share`).toBe(200);
      const joiner = path.includes('?') ? '&' : '?';
      expect((await rest(env.users.server, `${path}${joiner}share=${encodeURIComponent(token)}`)).status, `${path} with ?share=`).toBe(200);
      expect((await rest(env.users.server, path)).status, `${path} with nothing`).toBe(401);
    }
    const markdown = await rest(env.users.server, `/api/sessions/${sessionId}/export?format=md`, { share: token });
    expect(markdown.text).toContain('17 * 23');
  });

  it('confines a link to its session: its list holds that one alone, live; it cannot start, fork or import; others do not exist for it', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const other = await finishedSession(ada, 'What is 5 + 8?');
    const { token } = await shareLink(ada, sessionId, 'editor');
    const guest = await connectWithLink(token);

    const watching = await ask(guest, { type: 'sessions.watch', limit: 100 });
    expect((watching as { sessions: SessionInfo[] }).sessions.map((info) => info.sessionId)).toEqual([sessionId]);
    expect(await listedIds(env.users.server, { share: token })).toEqual([sessionId]);

    const stepId = ((await rest(env.users.server, `/api/sessions/${sessionId}`, { share: token })).body as SessionSnapshotData).chain[0]!;
    const forbidden = await refusal(guest, { type: 'session.create', task: 'What is 1 + 1?' }, 'FORBIDDEN');
    expect(forbidden).toMatch(/sign in/);
    await refusal(guest, { type: 'session.fork', sessionId, stepId }, 'FORBIDDEN');
    const exported = await rest(env.users.server, `/api/sessions/${sessionId}/export?format=json`, { share: token });
    const imported = await rest(env.users.server, '/api/sessions/import', { method: 'POST', share: token, body: exported.text, headers: { 'content-type': 'application/x-ndjson' } });
    expect(imported).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });

    const missing = missingIdLike(other);
    const onOther = await refusal(guest, { type: 'session.subscribe', sessionId: other }, 'SESSION_NOT_FOUND');
    const onMissing = await refusal(guest, { type: 'session.subscribe', sessionId: missing }, 'SESSION_NOT_FOUND');
    expect(withoutId(onOther, other)).toBe(withoutId(onMissing, missing));
    await refusal(guest, { type: 'step.correct', sessionId: other, stepId, content: 'x' }, 'SESSION_NOT_FOUND');
    for (const tail of ['', '/export?format=json']) {
      expect(await rest(env.users.server, `/api/sessions/${other}${tail}`, { share: token })).toMatchObject({ status: 404, body: { code: 'SESSION_NOT_FOUND' } });
    }
    expect(await rest(env.users.server, `/api/sessions/${other}`, { method: 'DELETE', share: token })).toMatchObject({ status: 404 });

    // Live: a new session of Ada's is not pushed to the link's list; a change to the shared one is.
    ada.send({ type: 'sessions.watch' });
    const third = await finishedSession(ada, 'What is 9 - 4?');
    await ada.waitForType('sessions.changed', (frame) => frame.session.sessionId === third && frame.session.status === 'completed');
    expect(await ask(ada, { type: 'session.message', sessionId, text: 'And times 2?' })).toMatchObject({ type: 'message.accepted' });
    await guest.waitForType('sessions.changed', (frame) => frame.session.sessionId === sessionId && frame.session.status === 'running');
    const pushed = guest.frames.flatMap((frame) => (frame.type === 'sessions.changed' ? [frame.session.sessionId] : []));
    expect(new Set(pushed)).toEqual(new Set([sessionId]));
    await ada.untilFinished(sessionId);
  });

  it('refuses a forged or altered link with 401 on the upgrade and on REST, quoting no token', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const { token } = await shareLink(ada, sessionId, 'viewer');
    const [payload, signature] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const promoted = Buffer.from(JSON.stringify({ ...claims, r: 'editor' })).toString('base64url');
    // A middle character: all 6 of its bits are signature (the last one's low bits are padding).
    const middle = Math.floor(signature.length / 2);
    const flipped = `${signature.slice(0, middle)}${signature[middle] === 'A' ? 'B' : 'A'}${signature.slice(middle + 1)}`;
    const forgeries = {
      'the role changed in the payload': `${promoted}.${signature}`,
      'the signature altered': `${payload}.${flipped}`,
      'the signature cut off': `${payload}.`,
      'no signature part': payload,
      'nothing like a link': 'not-a-share-link',
    };
    for (const [what, forged] of Object.entries(forgeries)) {
      const answer = await rest(env.users.server, `/api/sessions/${sessionId}`, { share: forged });
      expect(answer.status, what).toBe(401);
      expect(answer.body, what).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/not valid/) });
      expect(answer.text).not.toContain(forged);
      await expect(TestClient.connect(wsUrlWith(env.users.server, { share: forged })), what).rejects.toThrow('Unexpected server response: 401');
    }
  });

  it('refuses a link to a deleted session, saying so', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const { token } = await shareLink(ada, sessionId, 'editor');
    expect(await ask(ada, { type: 'session.delete', sessionId })).toMatchObject({ type: 'session.deleted' });
    const answer = await rest(env.users.server, `/api/sessions/${sessionId}`, { share: token });
    expect(answer).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', message: expect.stringMatching(/deleted/) } });
    await expect(TestClient.connect(wsUrlWith(env.users.server, { share: token }))).rejects.toThrow('Unexpected server response: 401');
  });

  it('adds a shared session to a signed-in user’s own: Bob sees it beside his, may fork it (the fork is his), but not steer it as a viewer', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const adasOther = await finishedSession(ada, 'What is 4 * 4?');
    const { token, shareId } = await shareLink(ada, sessionId, 'viewer');
    const bobAlone = await connectAs(BOB);
    const bobs = await finishedSession(bobAlone, 'What is 8 / 2?');
    const bob = await clients.connect(wsUrlWith(env.users.server, { token: await env.users.tokenFor(BOB), share: token }));
    const hello = (await bob.waitForType('hello')) as Hello;
    expect(hello.user).toMatchObject({ id: BOB.sub });
    expect(hello.share).toEqual({ sessionId, shareId, role: 'viewer' });

    const watching = (await ask(bob, { type: 'sessions.watch', limit: 100 })) as { sessions: SessionInfo[] };
    const ids = watching.sessions.map((info) => info.sessionId);
    expect(ids).toEqual(expect.arrayContaining([sessionId, bobs]));
    expect(ids).not.toContain(adasOther);
    expect(await listedIds(env.users.server, { bearer: await env.users.tokenFor(BOB), share: token })).toEqual(expect.arrayContaining([sessionId, bobs]));
    await refusal(bob, { type: 'session.subscribe', sessionId: adasOther }, 'SESSION_NOT_FOUND');

    const snapshot = (await ask(bob, { type: 'session.subscribe', sessionId })) as SessionSnapshotData;
    const stepId = snapshot.chain.at(-1)!;
    await refusal(bob, { type: 'step.correct', sessionId, stepId, content: 'No.' }, 'FORBIDDEN');
    const fork = await ask(bob, { type: 'session.fork', sessionId, stepId });
    expect(fork).toMatchObject({ type: 'session.created', session: { owner: { id: BOB.sub, name: BOB.name }, forkedFrom: { sessionId, stepId } } });
    const forkId = (fork as { session: SessionInfo }).session.sessionId;
    expect(await listedIds(env.users.server, { bearer: await env.users.tokenFor(BOB) })).toContain(forkId);
    expect(await listedIds(env.users.server, { bearer: await env.users.tokenFor(ADA) })).not.toContain(forkId);
  });

  it('does not let a link-only connection sign itself in with auth.refresh', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const other = await finishedSession(ada, 'What is 7 + 7?');
    const { token } = await shareLink(ada, sessionId, 'viewer');
    const guest = await connectWithLink(token);
    await refusal(guest, { type: 'auth.refresh', token: await env.users.tokenFor(ADA) }, 'INVALID_STATE');
    await refusal(guest, { type: 'session.subscribe', sessionId: other }, 'SESSION_NOT_FOUND');
    await refusal(guest, { type: 'session.delete', sessionId }, 'FORBIDDEN');
  });
});
