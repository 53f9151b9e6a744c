import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADA, BOB, HS256_SETUP, type UserServer } from '../../sharing/support/users.js';
import { ThreadClient, runInput } from './support.js';

describe('POST /api/ag-ui/:agent with users', () => {
  let users: UserServer;
  beforeAll(async () => {
    users = await HS256_SETUP.start();
  });
  afterAll(() => users.close());

  it('needs a sign-in, makes the thread its user’s session, and refuses it to another user', async () => {
    const { baseUrl } = users.server;
    const anonymous = await fetch(`${baseUrl}/api/ag-ui/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(runInput('t-anon', 'What is 2 + 2?')) });
    expect(anonymous.status).toBe(401);
    const ada = new ThreadClient(baseUrl, 'demo', { authorization: `Bearer ${await users.tokenFor(ADA)}` });
    await ada.say('What is 2 + 2?');
    const snapshot = await users.server.app.sessions.snapshot(ada.threadId);
    expect(snapshot?.session.owner).toMatchObject({ id: ADA.sub });
    const refused = await fetch(`${baseUrl}/api/ag-ui/demo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await users.tokenFor(BOB)}` },
      body: JSON.stringify(runInput(ada.threadId, 'And 3 + 3?')),
    });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect((await users.server.app.sessions.snapshot(ada.threadId))?.chain).toEqual(snapshot?.chain);
  });
});
