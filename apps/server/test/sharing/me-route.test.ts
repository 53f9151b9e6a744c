import type { Me } from '@interthought/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyConfig } from '../../src/config/index.js';
import { signHs256 } from '../support/jwt.js';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';
import { ADA, HS256_SETUP, ROOT, ask, finishedSession, rest, shareLink, wsUrlWith, type RestCall, type UserServer } from './support/users.js';

const LOGIN_URL = 'https://id.example.com/login';

/*
 * `GET /api/me` (PROTOCOL.md §21.1, §18): who the request's credentials say it is, answered
 * signed in or not, and saying why not, so a client can explain what is missing.
 */
async function me(server: RunningServer, call: RestCall = {}, query = ''): Promise<Me> {
  const answer = await rest(server, `/api/me${query}`, call);
  expect(answer.status, answer.text).toBe(200);
  return answer.body as Me;
}

describe('GET /api/me on a JWT server with a sign-in page', () => {
  let users: UserServer;

  beforeAll(async () => {
    users = await HS256_SETUP.start({ loginUrl: LOGIN_URL });
  });
  afterAll(() => users.close());

  it('names the signed-in user, and an admin as one, never to be cached', async () => {
    const answer = await rest(users.server, '/api/me', { bearer: await users.tokenFor(ADA) });
    expect(answer.body).toEqual({ auth: 'jwt', signedIn: true, user: { id: ADA.sub, name: ADA.name, admin: false }, loginUrl: LOGIN_URL });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await me(users.server, {}, `?token=${await users.tokenFor(ROOT)}`)).toMatchObject({ signedIn: true, user: { id: ROOT.sub, admin: true } });
  });

  it('says why a request is not signed in: no token, an expired one, a forged one', async () => {
    expect(await me(users.server)).toEqual({ auth: 'jwt', signedIn: false, loginUrl: LOGIN_URL, reason: 'No sign-in token was presented.' });
    const expired = await me(users.server, { bearer: await users.tokenFor(ADA, { expiresInS: -60 }) });
    expect(expired).toMatchObject({ signedIn: false, loginUrl: LOGIN_URL, reason: expect.stringMatching(/expired/i) });
    expect(expired.user).toBeUndefined();
    const forged = await signHs256({ sub: ADA.sub }, {}, 'another-secret-of-more-than-32-characters-xyz');
    const refused = await me(users.server, { bearer: forged });
    expect(refused).toMatchObject({ signedIn: false, reason: expect.any(String) });
    expect(refused.reason).not.toContain(forged);
  });

  it('names a share link’s grant, and says when a link no longer works', async () => {
    const ada = await TestClient.connect(wsUrlWith(users.server, { token: await users.tokenFor(ADA) }));
    const sessionId = await finishedSession(ada);
    const { token, shareId } = await shareLink(ada, sessionId, 'editor', 3_600);
    const withLink = await me(users.server, { share: token });
    expect(withLink).toMatchObject({ auth: 'jwt', signedIn: false, share: { sessionId, shareId, role: 'editor', expiresAt: expect.any(String) }, loginUrl: LOGIN_URL });
    expect(withLink.user).toBeUndefined();
    expect(await me(users.server, {}, `?share=${encodeURIComponent(token)}`)).toMatchObject({ share: { shareId } });
    expect(await me(users.server, { share: token, bearer: await users.tokenFor(ADA) })).toMatchObject({ signedIn: true, user: { id: ADA.sub }, share: { shareId } });

    await ask(ada, { type: 'session.unshare', sessionId, shareId });
    const revoked = await me(users.server, { share: token });
    expect(revoked.share).toBeUndefined();
    expect(revoked).toMatchObject({ signedIn: false, reason: expect.stringMatching(/revoked/) });
    await ada.close();
  });
});

describe('GET /api/me on servers without users', () => {
  let server: RunningServer | undefined;
  afterEach(() => server?.close());

  it('with no sign-in (`none`): everyone is signed in, as nobody in particular', async () => {
    server = await startServer();
    expect(await me(server)).toEqual({ auth: 'none', signedIn: true });
  });

  it('with the shared token: signed in only with it, and why not', async () => {
    server = await startServer({ token: 'the-shared-token-0123456789' });
    expect(await me(server, { bearer: 'the-shared-token-0123456789' })).toEqual({ auth: 'token', signedIn: true });
    expect(await me(server)).toEqual({ auth: 'token', signedIn: false, reason: 'No server token was presented.' });
    expect(await me(server, { bearer: 'a-wrong-token' })).toMatchObject({ signedIn: false, reason: expect.any(String) });
  });

  it('behind a proxy: the user its headers name', async () => {
    const proxy: ProxyConfig = { userHeader: 'x-forwarded-user', emailHeader: 'x-forwarded-email', trustedProxies: ['127.0.0.0/8'], admins: [] };
    server = await startServer({ identity: { mode: 'proxy', proxy } });
    expect(await me(server, { headers: { 'x-forwarded-user': 'ada' } })).toEqual({ auth: 'proxy', signedIn: true, user: { id: 'ada', name: 'ada', admin: false } });
    expect(await me(server)).toMatchObject({ auth: 'proxy', signedIn: false, reason: expect.any(String) });
  });
});
