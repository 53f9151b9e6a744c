import type { Me } from '@interthought/protocol';
import { describe, expect, it, vi } from 'vitest';
import { AccessGate, TokenStore } from '$lib/access/index.js';
import type { AccessAnswer } from '$lib/api/rest-api.js';

/** A client that records what the gate asks of it, in the state a test puts it. */
function fakeClient(state: 'open' | 'reconnecting' | 'closed' = 'open') {
  const listeners = new Set<(state: string) => void>();
  const calls: string[] = [];
  const client = {
    state,
    onStateChange: (listener: (state: string) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => {
      calls.push('close');
      client.state = 'closed';
    },
    connect: async () => {
      calls.push('connect');
      client.state = 'open';
    },
    reconnectNow: () => void calls.push('reconnectNow'),
    emit(next: 'open' | 'reconnecting') {
      client.state = next;
      for (const listener of listeners) listener(next);
    },
  };
  return { client, calls };
}

const signedOut: Me = { auth: 'jwt', signedIn: false, reason: 'no token was presented', loginUrl: 'https://sso.example/login' };
const ada: Me = { auth: 'jwt', signedIn: true, user: { id: 'u-ada', name: 'Ada', admin: true } };

function setUp(answers: AccessAnswer[], options: { token?: string; share?: string } = {}) {
  const { client, calls } = fakeClient();
  const tokens = new TokenStore(null);
  if (options.token !== undefined) tokens.set(options.token);
  let share = options.share;
  const check = vi.fn(async () => answers.shift() ?? { access: 'granted' as const });
  const gate = new AccessGate({
    tokens,
    client: client as never,
    check,
    recheckMs: 10,
    presentedShare: () => share,
    forgetShare: () => (share = undefined),
  });
  return { gate, client, calls, tokens, check, share: () => share };
}

describe('AccessGate with users and share links', () => {
  it('asks who the page is at the start, and keeps the answer: the signed-in user, the login page', async () => {
    const { gate, calls } = setUp([{ access: 'granted', me: ada }], { token: 'jwt-ada' });
    gate.start();
    await vi.waitFor(() => expect(gate.user).toEqual({ id: 'u-ada', name: 'Ada', admin: true }));
    expect(gate.problem).toBeNull();
    expect(calls).toEqual([]);
  });

  it('stops at once when the server says nobody is signed in, keeping its reason and login page for the sign-in screen', async () => {
    const { gate, calls } = setUp([{ access: 'unauthorized', me: signedOut }]);
    gate.start();
    await vi.waitFor(() => expect(gate.problem).toBe('missing'));
    expect(gate.me).toEqual(signedOut);
    expect(calls).toEqual(['close']);
  });

  it('holds a REST 401 heard before the server said how the page signs in, so the page asks for a sign-in, not a shared token', async () => {
    let answer!: (value: AccessAnswer) => void;
    const { gate, calls, check } = setUp([]);
    check.mockImplementationOnce(() => new Promise<AccessAnswer>((resolve) => (answer = resolve)));
    gate.start();
    gate.refused(undefined);
    // Not yet: a panel now would not know it is a sign-in.
    expect(gate.problem).toBeNull();
    answer({ access: 'unauthorized', me: signedOut });
    await vi.waitFor(() => expect(gate.problem).toBe('missing'));
    expect(gate.me).toEqual(signedOut);
    expect(calls).toEqual(['close']);
  });

  it('blocks on a REST 401 even when the first answer was a yes (the token stopped being taken meanwhile)', async () => {
    let answer!: (value: AccessAnswer) => void;
    const { gate, check } = setUp([], { token: 'jwt-ada' });
    check.mockImplementationOnce(() => new Promise<AccessAnswer>((resolve) => (answer = resolve)));
    gate.start();
    gate.refused('jwt-ada');
    answer({ access: 'granted', me: ada });
    await vi.waitFor(() => expect(gate.problem).toBe('refused'));
    expect(gate.me).toEqual(ada);
  });

  it('says a share link ended when the server no longer grants the link the page presents, signed in or not', async () => {
    const { gate, calls } = setUp([{ access: 'granted', me: ada }], { token: 'jwt-ada', share: 'sh-revoked' });
    gate.start();
    await vi.waitFor(() => expect(gate.problem).toBe('share-ended'));
    expect(calls).toEqual(['close']);
  });

  it('lets a share link in without any sign-in while the server grants it', async () => {
    const grant = { sessionId: 's1', shareId: 'sh1', role: 'viewer' as const };
    const { gate } = setUp([{ access: 'granted', me: { auth: 'jwt', signedIn: false, share: grant } }], { share: 'sh-tok' });
    gate.start();
    await vi.waitFor(() => expect(gate.me?.share).toEqual(grant));
    expect(gate.problem).toBeNull();
  });

  it('on the socket’s 4403 stops the client and says the link ended; leaving forgets the link and connects again', async () => {
    const { gate, client, calls, share } = setUp([], { share: 'sh-tok' });
    gate.shareEnded();
    expect(gate.problem).toBe('share-ended');
    expect(client.state).toBe('closed');
    gate.leaveShare();
    expect(share()).toBeUndefined();
    expect(gate.problem).toBeNull();
    expect(calls).toEqual(['close', 'connect']);
  });

  it('ignores a 4403 on a page that presents no link (another page’s socket closing late)', () => {
    const { gate, calls } = setUp([]);
    gate.shareEnded();
    expect(gate.problem).toBeNull();
    expect(calls).toEqual([]);
  });

  it('asks the server rather than blocking on a REST 401 while a link is presented: the route may be what refused', async () => {
    const grant = { sessionId: 's1', shareId: 'sh1', role: 'editor' as const };
    const { gate, check } = setUp([{ access: 'granted', me: { auth: 'jwt', signedIn: false, share: grant } }], { share: 'sh-tok' });
    gate.refused(undefined);
    await vi.waitFor(() => expect(check).toHaveBeenCalledTimes(1));
    expect(gate.problem).toBeNull();
  });

  it('stops at the socket’s 4401 and says the sign-in expired, until a new token is taken', async () => {
    const { gate, client, calls } = setUp([{ access: 'granted', me: ada }], { token: 'jwt-old' });
    gate.tokenExpired();
    expect(gate.problem).toBe('refused');
    expect(gate.expired).toBe(true);
    expect(client.state).toBe('closed');
    await gate.submit('jwt-new');
    expect(gate.problem).toBeNull();
    expect(gate.expired).toBe(false);
    expect(calls).toEqual(['close', 'connect']);
  });

  it('keeps asking while the socket fails though the server said yes: a JWT forgiven for clock skew stops being taken', async () => {
    const { gate, client, check } = setUp([{ access: 'granted', me: ada }, { access: 'granted', me: ada }, { access: 'unauthorized', me: signedOut }], { token: 'jwt-ada' });
    gate.start();
    await vi.waitFor(() => expect(gate.user).toBeDefined());
    client.emit('reconnecting');
    await vi.waitFor(() => expect(gate.problem).toBe('refused'));
    // At the start, on the drop, and once more while it stayed down.
    expect(check).toHaveBeenCalledTimes(3);
    gate.stop();
  });

  it('forgets the tab’s token on sign-out', () => {
    const { gate, tokens } = setUp([], { token: 'jwt-ada' });
    gate.signOut();
    expect(tokens.token).toBeUndefined();
  });
});
