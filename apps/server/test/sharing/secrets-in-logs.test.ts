import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logSink } from '../support/log-sink.js';
import { TestClient } from '../support/ws-client.js';
import { ADA, HS256_SETUP, ask, finishedSession, rest, shareLink, wsUrlWith, type UserServer } from './support/users.js';

/*
 * Neither a sign-in token nor a share link's token reaches a log line (PROTOCOL.md §3.3, §21.3),
 * even at debug level: request URLs show `[redacted]` in their place, accepted or refused.
 */
describe('tokens never in the logs', () => {
  let users: UserServer;
  const logs = logSink();

  beforeAll(async () => {
    users = await HS256_SETUP.start({ logLevel: 'debug' }, { logger: { level: 'debug', stream: logs.stream } });
  });
  afterAll(() => users.close());

  it('logs requests with ?token= and ?share= (and the headers), accepted and refused, without either token', async () => {
    const jwt = await users.tokenFor(ADA);
    const expired = await users.tokenFor(ADA, { expiresInS: -60 });
    const ada = await TestClient.connect(wsUrlWith(users.server, { token: jwt }));
    const sessionId = await finishedSession(ada);
    const link = await shareLink(ada, sessionId, 'viewer');
    const made = await rest(users.server, `/api/sessions/${sessionId}/shares?token=${jwt}`, { method: 'POST', body: { role: 'editor' } });
    expect(made.status).toBe(201);
    const madeOverRest = (made.body as { token: string }).token;
    const revokedLink = await shareLink(ada, sessionId, 'viewer');
    await ask(ada, { type: 'session.unshare', sessionId, shareId: revokedLink.shareId });
    const forged = `${link.token.split('.')[0]!}.${'A'.repeat(43)}`;

    const both = await TestClient.connect(wsUrlWith(users.server, { token: jwt, share: link.token }));
    const linkOnly = await TestClient.connect(wsUrlWith(users.server, { share: madeOverRest }));
    await Promise.all([both.waitForType('hello'), linkOnly.waitForType('hello')]);
    await ask(linkOnly, { type: 'session.subscribe', sessionId });
    for (const refused of [{ share: forged }, { share: revokedLink.token }, { token: expired }]) {
      await expect(TestClient.connect(wsUrlWith(users.server, refused))).rejects.toThrow('401');
    }
    expect((await rest(users.server, `/api/sessions/${sessionId}?share=${encodeURIComponent(link.token)}`)).status).toBe(200);
    expect((await rest(users.server, `/api/sessions?token=${jwt}`)).status).toBe(200);
    expect((await rest(users.server, `/api/me?token=${expired}&share=${encodeURIComponent(revokedLink.token)}`)).status).toBe(200);
    expect((await rest(users.server, `/api/sessions/${sessionId}`, { bearer: jwt, share: link.token })).status).toBe(200);
    expect((await rest(users.server, `/api/sessions/${sessionId}?share=${encodeURIComponent(forged)}`)).status).toBe(401);
    expect((await rest(users.server, `/api/sessions?token=${expired}`)).status).toBe(401);
    await Promise.all([ada.close(), both.close(), linkOnly.close()]);

    const text = logs.text();
    // The requests above were logged, with their URLs' secrets replaced.
    expect(text).toContain(`/api/sessions/${sessionId}?share=[redacted]`);
    expect(text).toContain('/ws?token=[redacted]&share=[redacted]');
    expect(text).toContain('/api/sessions?token=[redacted]');
    expect(text).toContain('refused a sign-in');
    for (const [what, secret] of Object.entries({ jwt, expired, link: link.token, madeOverRest, revoked: revokedLink.token, forged })) {
      const signature = secret.split('.').at(-1)!;
      expect(text.includes(secret), `the ${what} token is in the logs`).toBe(false);
      expect(text.includes(signature), `the ${what} token's signature is in the logs`).toBe(false);
    }
  });
});
