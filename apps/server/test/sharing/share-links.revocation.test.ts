import { SHARE_ENDED_CLOSE, type ShareRecord } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { TestClient, type CloseInfo } from '../support/ws-client.js';
import { ADA, BOB, ask, finishedSession, refusal, rest, shareLink, wsUrlWith, useUserServer } from './support/users.js';

/** How long a revocation may take to close a connection on a busy machine: "at once", with room to spare. */
const CLOSED_WITHIN_MS = 5_000;

/** The close of `client`, or a failure naming `what` if it stays open. */
function closedWithin(client: TestClient, what: string): Promise<CloseInfo> {
  return Promise.race([
    client.closed,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} was not closed within ${CLOSED_WITHIN_MS} ms`)), CLOSED_WITHIN_MS).unref()),
  ]);
}

/*
 * Revoking a link (PROTOCOL.md §21.3, §17): every connection opened with it is closed at once
 * with 4403 "share ended", and the link is refused from then on, saying it was revoked.
 */
describe('revoking a share link', () => {
  const env = useUserServer();
  const { clients } = env;

  async function connectAs(user: typeof ADA, share?: string): Promise<TestClient> {
    return clients.connect(wsUrlWith(env.users.server, { token: await env.users.tokenFor(user), share }));
  }

  async function expectRefusedAsRevoked(sessionId: string, token: string): Promise<void> {
    const answer = await rest(env.users.server, `/api/sessions/${sessionId}`, { share: token });
    expect(answer).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', message: expect.stringMatching(/revoked/) } });
    expect((await rest(env.users.server, `/api/sessions/${sessionId}?share=${encodeURIComponent(token)}`)).status).toBe(401);
    await expect(TestClient.connect(wsUrlWith(env.users.server, { share: token }))).rejects.toThrow('Unexpected server response: 401');
  }

  it('over the WebSocket: closes every connection opened with the link with 4403, and only those', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const viewer = await shareLink(ada, sessionId, 'viewer');
    const editor = await shareLink(ada, sessionId, 'editor');
    const holders = [
      await clients.connect(wsUrlWith(env.users.server, { share: viewer.token })),
      await clients.connect(wsUrlWith(env.users.server, { share: viewer.token })),
      // Bob, signed in, opened his connection with the link too: it ends with the link.
      await connectAs(BOB, viewer.token),
    ];
    for (const holder of holders) expect(await ask(holder, { type: 'session.subscribe', sessionId })).toMatchObject({ type: 'session.snapshot' });
    const editorHolder = await clients.connect(wsUrlWith(env.users.server, { share: editor.token }));
    expect(await ask(editorHolder, { type: 'session.subscribe', sessionId })).toMatchObject({ type: 'session.snapshot' });

    expect(await ask(ada, { type: 'session.unshare', sessionId, shareId: viewer.shareId })).toEqual({
      type: 'session.unshared',
      requestId: expect.any(String),
      sessionId,
      shareId: viewer.shareId,
    });
    expect(await ada.waitForType('share.revoked', (frame) => frame.sessionId === sessionId)).toMatchObject({ shareId: viewer.shareId, by: ADA.sub, byName: ADA.name });
    for (const [index, holder] of holders.entries()) {
      expect(await closedWithin(holder, `holder ${index}`)).toEqual<CloseInfo>(SHARE_ENDED_CLOSE);
    }

    // The other link, and its connection, go on.
    expect(editorHolder.closeInfo).toBeUndefined();
    expect(await ask(editorHolder, { type: 'session.message', sessionId, text: 'And plus 1?' })).toMatchObject({ type: 'message.accepted' });
    await editorHolder.untilFinished(sessionId);
    expect((await rest(env.users.server, `/api/sessions/${sessionId}`, { share: editor.token })).status).toBe(200);

    await expectRefusedAsRevoked(sessionId, viewer.token);
    expect(await refusal(ada, { type: 'session.unshare', sessionId, shareId: viewer.shareId }, 'INVALID_STATE')).toMatch(/revoked already/);
    const listed = await rest(env.users.server, `/api/sessions/${sessionId}/shares`, { bearer: await env.users.tokenFor(ADA) });
    expect((listed.body as { shares: ShareRecord[] }).shares.map((share) => share.shareId)).toEqual([editor.shareId]);
  });

  it('lets a signed-in user in as themselves past a dead link they still carry: the link is left out, not held against them', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const { token, shareId } = await shareLink(ada, sessionId, 'viewer');
    await ask(ada, { type: 'session.unshare', sessionId, shareId });
    const bearer = await env.users.tokenFor(BOB);
    const bob = await clients.connect(wsUrlWith(env.users.server, { share: token, token: bearer }));
    const hello = await bob.waitForType('hello');
    expect(hello.user).toMatchObject({ id: BOB.sub });
    expect(hello.share).toBeUndefined();
    expect((await rest(env.users.server, '/api/sessions', { share: token, bearer })).status).toBe(200);
    // Alone, the dead link is refused.
    await expectRefusedAsRevoked(sessionId, token);
  });

  it('over REST: DELETE …/shares/:shareId closes the link’s connections with 4403 and refuses the link from then on', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const { token, shareId } = await shareLink(ada, sessionId, 'editor');
    const holder = await clients.connect(wsUrlWith(env.users.server, { share: token }));
    await ask(holder, { type: 'session.subscribe', sessionId });
    const bearer = await env.users.tokenFor(ADA);
    expect((await rest(env.users.server, `/api/sessions/${sessionId}/shares/${shareId}`, { method: 'DELETE', bearer })).status).toBe(204);
    expect(await closedWithin(holder, 'the holder')).toEqual(SHARE_ENDED_CLOSE);
    await expectRefusedAsRevoked(sessionId, token);
    const again = await rest(env.users.server, `/api/sessions/${sessionId}/shares/${shareId}`, { method: 'DELETE', bearer });
    expect(again).toMatchObject({ status: 400, body: { code: 'INVALID_STATE' } });
  });

  it('closes a connection opened with the link even when it follows nothing, or only the list', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const { token, shareId } = await shareLink(ada, sessionId, 'viewer');
    const idle = await clients.connect(wsUrlWith(env.users.server, { share: token }));
    const listWatcher = await clients.connect(wsUrlWith(env.users.server, { share: token }));
    expect(await ask(listWatcher, { type: 'sessions.watch' })).toMatchObject({ type: 'sessions.watching' });
    await ask(ada, { type: 'session.unshare', sessionId, shareId });
    expect(await closedWithin(listWatcher, 'the connection watching the list')).toEqual(SHARE_ENDED_CLOSE);
    expect(await closedWithin(idle, 'the connection that follows nothing')).toEqual(SHARE_ENDED_CLOSE);
  });

  it('ends a link with its session: a connection opened with it is told session.deleted, then closed with 4403', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const { token } = await shareLink(ada, sessionId, 'viewer');
    const holder = await clients.connect(wsUrlWith(env.users.server, { share: token }));
    await ask(holder, { type: 'session.subscribe', sessionId });
    await ask(ada, { type: 'session.delete', sessionId });
    expect(await holder.waitForType('session.deleted', (frame) => frame.sessionId === sessionId)).toMatchObject({ sessionId });
    expect(await holder.closed).toEqual({ code: SHARE_ENDED_CLOSE.code, reason: SHARE_ENDED_CLOSE.reason });
    expect((await rest(env.users.server, `/api/sessions/${sessionId}`, { share: token })).status).toBe(401);
  });
});
