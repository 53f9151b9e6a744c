import { afterEach, describe, expect, it } from 'vitest';
import type { TestClient } from '../support/ws-client.js';
import { ADA, BOB, HS256_SETUP, OpenClients, ask, refusal, wsUrlWith, type TestUser, type UserServer } from './support/users.js';

/*
 * Per-user limits (PROTOCOL.md §21.2): a signed-in user's running or paused sessions and run
 * starts are counted for the user, whatever address or connection they come from, and a refusal
 * names "your account". Every client here comes from 127.0.0.1: the address is not what is counted.
 */
describe('per-user limits', () => {
  let users: UserServer | undefined;
  const clients = new OpenClients();

  afterEach(async () => {
    await clients.closeAll();
    await users?.close();
  });

  async function connectAs(user: TestUser): Promise<TestClient> {
    return clients.connect(wsUrlWith(users!.server, { token: await users!.tokenFor(user) }));
  }

  it('refuses a user’s second active session with LIMIT_EXCEEDED naming the account; another user on the same address still starts one', async () => {
    users = await HS256_SETUP.start({ maxActiveSessionsPerUser: 1 });
    const ada = await connectAs(ADA);
    // Paced, and paused at once: the session stays active (paused) for the whole test.
    const first = await ada.createSession('What is 15% of 240?', { options: { tokenDelayMs: 50 } });
    expect(await ask(ada, { type: 'session.pause', sessionId: first })).toMatchObject({ type: 'session.status', status: 'paused' });

    const message = await refusal(ada, { type: 'session.create', task: 'What is 2 + 2?' }, 'LIMIT_EXCEEDED');
    expect(message).toMatch(/your account/);
    // Another connection of Ada's counts against the same account.
    const adaElsewhere = await connectAs(ADA);
    expect(await refusal(adaElsewhere, { type: 'session.create', task: 'What is 2 + 2?' }, 'LIMIT_EXCEEDED')).toMatch(/your account/);

    const bob = await connectAs(BOB);
    const bobs = await bob.createSession('What is 3 + 3?');
    await bob.untilFinished(bobs);

    // Once Ada's session ends, her slot is free again.
    expect(await ask(ada, { type: 'session.cancel', sessionId: first })).toMatchObject({ type: 'session.status', status: 'cancelled' });
    const second = await ada.createSession('What is 4 + 4?');
    await ada.untilFinished(second);
  });

  it('refuses a user’s run start over the per-minute budget with RATE_LIMITED naming the account; another user still starts runs', async () => {
    users = await HS256_SETUP.start({ runStartsPerMinutePerUser: 2 });
    const ada = await connectAs(ADA);
    const first = await ada.createSession('What is 1 + 1?');
    await ada.untilFinished(first);
    const second = await ada.createSession('What is 2 + 2?');
    await ada.untilFinished(second);

    const adaElsewhere = await connectAs(ADA);
    expect(await refusal(adaElsewhere, { type: 'session.create', task: 'What is 3 + 3?' }, 'RATE_LIMITED')).toMatch(/your account/);
    // A message starts a run too.
    expect(await refusal(ada, { type: 'session.message', sessionId: first, text: 'And times 2?' }, 'RATE_LIMITED')).toMatch(/your account/);

    const bob = await connectAs(BOB);
    const bobs = await bob.createSession('What is 5 + 5?');
    await bob.untilFinished(bobs);
  });
});
