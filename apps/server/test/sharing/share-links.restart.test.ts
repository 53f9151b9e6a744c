import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hello, SessionSnapshotData } from '@interthought/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { TestClient } from '../support/ws-client.js';
import { ADA, HS256_SETUP, ask, finishedSession, rest, shareLink, wsUrlWith, type UserServer } from './support/users.js';

/*
 * Links outlive the process (PROTOCOL.md §21.3): without INTERTHOUGHT_SHARE_SECRET the signing key
 * is kept in the store, so a link made before a restart on the same SQLite file still opens its
 * session after it, and one revoked before it stays revoked.
 */
describe('share links across a server restart on the same SQLite file', () => {
  let folder: string;
  const opened: { users: UserServer; store: SqliteEventStore }[] = [];

  async function start(file: string): Promise<UserServer> {
    const store = openSqliteEventStore(join(folder, file));
    const users = await HS256_SETUP.start({}, { store });
    opened.push({ users, store });
    return users;
  }

  async function stop(users: UserServer): Promise<void> {
    const index = opened.findIndex((entry) => entry.users === users);
    const [entry] = opened.splice(index, 1);
    await entry!.users.close();
    await entry!.store.close();
  }

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'interthought-sharing-'));
  });
  afterAll(async () => {
    for (const entry of opened.splice(0)) {
      await entry.users.close();
      await entry.store.close();
    }
    rmSync(folder, { recursive: true, force: true });
  });

  it('keeps a link working after a restart, and a revoked one revoked; another file’s server does not take it', async () => {
    const first = await start('sessions.db');
    const ada = await TestClient.connect(wsUrlWith(first.server, { token: await first.tokenFor(ADA) }));
    const sessionId = await finishedSession(ada);
    const kept = await shareLink(ada, sessionId, 'viewer');
    const revoked = await shareLink(ada, sessionId, 'editor');
    await ask(ada, { type: 'session.unshare', sessionId, shareId: revoked.shareId });
    const before = (await rest(first.server, `/api/sessions/${sessionId}`, { share: kept.token })).body as SessionSnapshotData;
    await ada.close();
    await stop(first);

    const second = await start('sessions.db');
    const guest = await TestClient.connect(wsUrlWith(second.server, { share: kept.token }));
    expect(((await guest.waitForType('hello')) as Hello).share).toEqual({ sessionId, shareId: kept.shareId, role: 'viewer' });
    expect(await ask(guest, { type: 'session.subscribe', sessionId })).toMatchObject({ type: 'session.snapshot', seq: before.seq, chain: before.chain });
    await guest.close();
    expect((await rest(second.server, `/api/sessions/${sessionId}`, { share: kept.token })).status).toBe(200);
    expect(await rest(second.server, `/api/sessions/${sessionId}`, { share: revoked.token })).toMatchObject({
      status: 401,
      body: { message: expect.stringMatching(/revoked/) },
    });
    await stop(second);

    // A server on another file has a key of its own: the link is not one it made.
    const stranger = await start('other.db');
    expect(await rest(stranger.server, `/api/sessions/${sessionId}`, { share: kept.token })).toMatchObject({
      status: 401,
      body: { message: expect.stringMatching(/not valid/) },
    });
  });
});
