import type { SessionInfo, SessionSnapshotData } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import type { TestClient } from '../support/ws-client.js';
import { ADA, BOB, HS256_SETUP, JWKS_SETUP, ROOT, ask, finishedSession, listedIds, missingIdLike, rest, waitingSession, withoutId, wsUrlWith, type TestUser, useUserServer } from './support/users.js';

/*
 * Users kept apart (PROTOCOL.md §21.2): two users and an admin on one real server, for each way a
 * server verifies sign-ins. Another user's session is, to Bob, exactly a session that does not exist.
 */
describe.each([HS256_SETUP, JWKS_SETUP])('users kept apart, signed in with $name', (setup) => {
  const env = useUserServer(setup);
  const { clients } = env;

  async function connectAs(user: TestUser): Promise<TestClient> {
    return clients.connect(wsUrlWith(env.users.server, { token: await env.users.tokenFor(user) }));
  }

  async function snapshotAs(user: TestUser, sessionId: string): Promise<SessionSnapshotData> {
    const answer = await rest(env.users.server, `/api/sessions/${sessionId}`, { bearer: await env.users.tokenFor(user) });
    expect(answer.status).toBe(200);
    return answer.body as SessionSnapshotData;
  }

  it('names the user in hello, and gives a session to its creator as { id, name }', async () => {
    const ada = await connectAs(ADA);
    expect((await ada.waitForType('hello')).user).toEqual({ id: ADA.sub, name: ADA.name, admin: false });
    const root = await connectAs(ROOT);
    expect((await root.waitForType('hello')).user).toEqual({ id: ROOT.sub, name: ROOT.name, admin: true });
    const created = await ada.answerTo(ada.send({ type: 'session.create', task: 'What is 6 * 7?' }));
    expect(created).toMatchObject({ type: 'session.created', session: { owner: { id: ADA.sub, name: ADA.name } } });
    const sessionId = (created as { session: SessionInfo }).session.sessionId;
    await ada.untilFinished(sessionId);
    expect((await snapshotAs(ADA, sessionId)).session.owner).toEqual({ id: ADA.sub, name: ADA.name });
  });

  it('answers every WebSocket request of Bob on Ada’s session exactly as for a session that does not exist, and changes nothing', async () => {
    const ada = await connectAs(ADA);
    const { sessionId, stepId } = await waitingSession(ada);
    const before = await snapshotAs(ADA, sessionId);
    const missing = missingIdLike(sessionId);
    const bob = await connectAs(BOB);
    const requests = (id: string): Record<string, unknown>[] => [
      { type: 'session.subscribe', sessionId: id },
      { type: 'session.subscribe', sessionId: id, afterSeq: 0 },
      { type: 'session.unsubscribe', sessionId: id },
      { type: 'step.correct', sessionId: id, stepId, content: 'Use 50% instead.' },
      { type: 'session.message', sessionId: id, text: 'Hello?' },
      { type: 'tool.approve', sessionId: id, stepId },
      { type: 'tool.reject', sessionId: id, stepId, reason: 'No.' },
      { type: 'session.pause', sessionId: id },
      { type: 'session.resume', sessionId: id },
      { type: 'session.cancel', sessionId: id },
      { type: 'subagent.cancel', sessionId: id, scope: stepId },
      { type: 'session.delete', sessionId: id },
      { type: 'session.fork', sessionId: id, stepId },
      { type: 'session.share', sessionId: id, role: 'editor' },
      { type: 'session.unshare', sessionId: id, shareId: 'sh_anything' },
    ];
    const onAdas = requests(sessionId);
    const onMissing = requests(missing);
    for (const [index, request] of onAdas.entries()) {
      const real = await ask(bob, request);
      const none = await ask(bob, onMissing[index]!);
      expect(real, JSON.stringify(request)).toMatchObject({ type: 'error', code: 'SESSION_NOT_FOUND' });
      expect(none).toMatchObject({ type: 'error', code: 'SESSION_NOT_FOUND' });
      expect(withoutId((real as { message: string }).message, sessionId)).toBe(withoutId((none as { message: string }).message, missing));
    }
    // Bob was told nothing of the session: no event, no snapshot.
    expect(bob.frames.filter((frame) => 'sessionId' in frame && frame.sessionId === sessionId)).toEqual([]);
    expect(await snapshotAs(ADA, sessionId)).toEqual(before);
  });

  it('answers Bob’s REST calls on Ada’s session with the 404 of a missing id, and deletes nothing', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const missing = missingIdLike(sessionId);
    const bob = await env.users.tokenFor(BOB);
    const calls: [string, string, unknown?][] = [
      ['GET', ''],
      ['GET', '/export?format=json'],
      ['GET', '/export?format=md'],
      ['GET', '/shares'],
      ['POST', '/shares', { role: 'viewer' }],
      ['DELETE', '/shares/sh_anything'],
      ['DELETE', ''],
    ];
    for (const [method, tail, body] of calls) {
      const real = await rest(env.users.server, `/api/sessions/${sessionId}${tail}`, { method, bearer: bob, body });
      const none = await rest(env.users.server, `/api/sessions/${missing}${tail}`, { method, bearer: bob, body });
      expect(real.status, `${method} ${tail}`).toBe(404);
      expect(none.status).toBe(404);
      const [realError, noneError] = [real.body as { code: string; message: string }, none.body as { code: string; message: string }];
      expect(realError.code).toBe('SESSION_NOT_FOUND');
      expect({ ...realError, message: withoutId(realError.message, sessionId) }).toEqual({ ...noneError, message: withoutId(noneError.message, missing) });
    }
    expect((await snapshotAs(ADA, sessionId)).session.sessionId).toBe(sessionId);
  });

  it('lists each user’s own sessions only, and every session to the admin', async () => {
    const ada = await connectAs(ADA);
    const bob = await connectAs(BOB);
    const adas = await finishedSession(ada);
    const bobs = await finishedSession(bob);
    const adaList = await listedIds(env.users.server, { bearer: await env.users.tokenFor(ADA) });
    const bobList = await listedIds(env.users.server, { bearer: await env.users.tokenFor(BOB) });
    const rootList = await listedIds(env.users.server, { bearer: await env.users.tokenFor(ROOT) });
    expect(adaList).toContain(adas);
    expect(adaList).not.toContain(bobs);
    expect(bobList).toContain(bobs);
    expect(bobList).not.toContain(adas);
    expect(rootList).toEqual(expect.arrayContaining([adas, bobs]));
    const page = await rest(env.users.server, '/api/sessions?limit=100', { bearer: await env.users.tokenFor(BOB) });
    for (const info of (page.body as { sessions: SessionInfo[] }).sessions) expect(info.owner).toEqual({ id: BOB.sub, name: BOB.name });
  });

  it('tells list watchers of their own sessions only; the admin watches them all', async () => {
    const ada = await connectAs(ADA);
    const bob = await connectAs(BOB);
    const root = await connectAs(ROOT);
    const watching = await Promise.all([ada, bob, root].map((client) => ask(client, { type: 'sessions.watch', limit: 100 })));
    for (const [index, owner] of [ADA, BOB].entries()) {
      const sessions = (watching[index] as { sessions: SessionInfo[] }).sessions;
      expect(sessions.every((info) => info.owner?.id === owner.sub)).toBe(true);
    }
    const adas = await finishedSession(ada, 'What is 2 + 2?');
    // Ada's own watcher saw her session complete: every push about it went out before Bob's session exists.
    await ada.waitForType('sessions.changed', (frame) => frame.session.sessionId === adas && frame.session.status === 'completed');
    const bobs = await finishedSession(bob, 'What is 3 + 3?');
    await bob.waitForType('sessions.changed', (frame) => frame.session.sessionId === bobs && frame.session.status === 'completed');
    await root.waitForType('sessions.changed', (frame) => frame.session.sessionId === bobs && frame.session.status === 'completed');
    const pushedTo = (client: TestClient): string[] =>
      client.frames.flatMap((frame) => (frame.type === 'sessions.changed' ? [frame.session.sessionId] : []));
    expect(new Set(pushedTo(bob))).toEqual(new Set([bobs]));
    expect(new Set(pushedTo(root))).toEqual(new Set([adas, bobs]));
    expect(pushedTo(ada)).not.toContain(bobs);
  });

  if (setup.rotatesKeys) {
    it('keeps users apart across a key rotation: new tokens of the new key sign in the same users', async () => {
      const ada = await connectAs(ADA);
      const adas = await finishedSession(ada);
      await env.users.rotateKey!();
      // Signed with the new key, which the server has not fetched yet.
      const adaAgain = await connectAs(ADA);
      expect((await adaAgain.waitForType('hello')).user).toMatchObject({ id: ADA.sub });
      expect(await ask(adaAgain, { type: 'session.subscribe', sessionId: adas })).toMatchObject({ type: 'session.snapshot' });
      const bob = await connectAs(BOB);
      expect(await ask(bob, { type: 'session.subscribe', sessionId: adas })).toMatchObject({ type: 'error', code: 'SESSION_NOT_FOUND' });
      expect(await listedIds(env.users.server, { bearer: await env.users.tokenFor(BOB) })).not.toContain(adas);
      expect(await listedIds(env.users.server, { bearer: await env.users.tokenFor(ROOT) })).toContain(adas);
      // The connection opened with the old key's token goes on.
      expect(await ask(ada, { type: 'session.subscribe', sessionId: adas })).toMatchObject({ type: 'session.snapshot' });
    });
  }

  it('lets the admin see and act on any user’s session: subscribe, correct, fork (the fork is the admin’s), share and delete', async () => {
    const ada = await connectAs(ADA);
    const root = await connectAs(ROOT);
    const { sessionId, stepId } = await waitingSession(ada);
    expect(await ask(root, { type: 'session.subscribe', sessionId })).toMatchObject({ type: 'session.snapshot', session: { owner: { id: ADA.sub } } });
    expect(await ask(root, { type: 'tool.approve', sessionId, stepId })).toMatchObject({ type: 'approval.resolved', by: ROOT.sub, byName: ROOT.name });
    await root.untilFinished(sessionId);
    const fork = await ask(root, { type: 'session.fork', sessionId, stepId });
    expect(fork).toMatchObject({ type: 'session.created', session: { owner: { id: ROOT.sub, name: ROOT.name }, forkedFrom: { sessionId, stepId } } });
    const forkId = (fork as { session: SessionInfo }).session.sessionId;
    expect(await listedIds(env.users.server, { bearer: await env.users.tokenFor(ADA) })).not.toContain(forkId);
    expect(await ask(root, { type: 'session.share', sessionId, role: 'viewer' })).toMatchObject({ type: 'session.shared', sessionId });
    const deleted = await rest(env.users.server, `/api/sessions/${sessionId}`, { method: 'DELETE', bearer: await env.users.tokenFor(ROOT) });
    expect(deleted.status).toBe(204);
    expect((await rest(env.users.server, `/api/sessions/${sessionId}`, { bearer: await env.users.tokenFor(ADA) })).status).toBe(404);
  });

  it('gives a fork to the user who forked it', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const stepId = (await snapshotAs(ADA, sessionId)).chain[0]!;
    const fork = await ask(ada, { type: 'session.fork', sessionId, stepId });
    expect(fork).toMatchObject({ type: 'session.created', session: { owner: { id: ADA.sub, name: ADA.name } } });
    const forkId = (fork as { session: SessionInfo }).session.sessionId;
    expect(await listedIds(env.users.server, { bearer: await env.users.tokenFor(ADA) })).toContain(forkId);
    expect(await listedIds(env.users.server, { bearer: await env.users.tokenFor(BOB) })).not.toContain(forkId);
  });

  it('gives an import to the user who imported it, not to the owner named in the file', async () => {
    const ada = await connectAs(ADA);
    const sessionId = await finishedSession(ada);
    const exported = await rest(env.users.server, `/api/sessions/${sessionId}/export?format=json`, { bearer: await env.users.tokenFor(ADA) });
    expect(exported.status).toBe(200);
    const header = JSON.parse(exported.text.split('\n')[0]!) as { session: SessionInfo };
    expect(header.session.owner).toEqual({ id: ADA.sub, name: ADA.name });
    const bob = await env.users.tokenFor(BOB);
    const imported = await rest(env.users.server, '/api/sessions/import', {
      method: 'POST',
      bearer: bob,
      body: exported.text,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imported.status, imported.text).toBe(201);
    const importedInfo = (imported.body as { session: SessionInfo }).session;
    expect(importedInfo.owner).toEqual({ id: BOB.sub, name: BOB.name });
    expect(await listedIds(env.users.server, { bearer: bob })).toContain(importedInfo.sessionId);
    expect(await listedIds(env.users.server, { bearer: await env.users.tokenFor(ADA) })).not.toContain(importedInfo.sessionId);
    const importedSnapshot = await rest(env.users.server, `/api/sessions/${importedInfo.sessionId}`, { bearer: bob });
    expect((importedSnapshot.body as SessionSnapshotData).session.owner).toEqual({ id: BOB.sub, name: BOB.name });
    expect((await rest(env.users.server, `/api/sessions/${importedInfo.sessionId}`, { bearer: await env.users.tokenFor(ADA) })).status).toBe(404);
  });
});
