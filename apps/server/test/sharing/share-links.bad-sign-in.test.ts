import type { Hello, SessionInfo } from '@interthought/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signHs256, unsignedToken } from '../support/jwt.js';
import { ADA, HS256_SETUP, OpenClients, ROOT, ask, finishedSession, listedIds, refusal, rest, shareLink, wsUrlWith, type RestCall, type UserServer } from './support/users.js';

/*
 * A link beside a sign-in that fails (PROTOCOL.md §21.3): the link lets its holder in without an
 * account, so a bad token next to it is left out — and must give nothing more than the link does.
 * (Bad tokens on their own are refused by the tests in test/auth.)
 */
describe('a valid share link beside an expired or forged sign-in', () => {
  let users: UserServer;
  const clients = new OpenClients();
  let sessionId: string;
  let other: string;
  let token: string;

  beforeAll(async () => {
    users = await HS256_SETUP.start();
    const ada = await clients.connect(wsUrlWith(users.server, { token: await users.tokenFor(ADA) }));
    sessionId = await finishedSession(ada);
    other = await finishedSession(ada, 'What is 12 - 5?');
    ({ token } = await shareLink(ada, sessionId, 'viewer'));
    await clients.closeAll();
  });
  afterEach(() => clients.closeAll());
  afterAll(() => users.close());

  /** Tokens that claim to be Ada, or the admin, and are not valid sign-ins. */
  async function badSignIns(): Promise<Record<string, string>> {
    return {
      'an expired token of Ada': await users.tokenFor(ADA, { expiresInS: -60 }),
      'a token of the admin signed with another secret': await signHs256({ sub: ROOT.sub, roles: ['admin'] }, {}, 'not-the-server-secret-0123456789-abcdef'),
      'an unsigned (alg: none) token of the admin': unsignedToken({ sub: ROOT.sub, roles: ['admin'] }),
    };
  }

  it('gives a WebSocket only the link’s access: no user, its one session, read-only', async () => {
    for (const [what, bad] of Object.entries(await badSignIns())) {
      const client = await clients.connect(wsUrlWith(users.server, { token: bad, share: token }));
      const hello = (await client.waitForType('hello')) as Hello;
      expect(hello.user, what).toBeUndefined();
      expect(hello.share, what).toMatchObject({ sessionId, role: 'viewer' });
      const watching = (await ask(client, { type: 'sessions.watch' })) as { sessions: SessionInfo[] };
      expect(watching.sessions.map((info) => info.sessionId), what).toEqual([sessionId]);
      expect(await ask(client, { type: 'session.subscribe', sessionId })).toMatchObject({ type: 'session.snapshot' });
      await refusal(client, { type: 'session.subscribe', sessionId: other }, 'SESSION_NOT_FOUND');
      await refusal(client, { type: 'session.create', task: 'What is 1 + 1?' }, 'FORBIDDEN');
      await refusal(client, { type: 'session.delete', sessionId }, 'FORBIDDEN');
      await refusal(client, { type: 'session.message', sessionId, text: 'Hello' }, 'FORBIDDEN');
      await refusal(client, { type: 'session.share', sessionId, role: 'editor' }, 'FORBIDDEN');
      await client.close();
    }
  });

  it('gives REST only the link’s access, with the token as a Bearer header or ?token=', async () => {
    for (const [what, bad] of Object.entries(await badSignIns())) {
      const ways: [string, string, RestCall][] = [
        ['as a Bearer header', '', { bearer: bad, share: token }],
        ['as ?token=', `?token=${bad}`, { share: token }],
      ];
      for (const [how, query, call] of ways) {
        const label = `${what}, ${how}`;
        const list = await rest(users.server, `/api/sessions${query}`, call);
        expect((list.body as { sessions: SessionInfo[] }).sessions.map((info) => info.sessionId), label).toEqual([sessionId]);
        expect((await rest(users.server, `/api/sessions/${sessionId}${query}`, call)).status, label).toBe(200);
        expect((await rest(users.server, `/api/sessions/${other}${query}`, call)).status, label).toBe(404);
        expect((await rest(users.server, `/api/sessions/${sessionId}${query}`, { ...call, method: 'DELETE' })).status, label).toBe(403);
        expect((await rest(users.server, `/api/sessions/${sessionId}/shares${query}`, call)).status, label).toBe(403);
      }
    }
    expect(await listedIds(users.server, { bearer: await users.tokenFor(ADA) })).toEqual(expect.arrayContaining([sessionId, other]));
  });
});
