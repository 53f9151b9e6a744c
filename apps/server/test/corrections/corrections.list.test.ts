import { chainSteps } from '@interthought/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';
import { ADA, BOB, ROOT, rest, shareLink, useUserServer, wsUrlWith } from '../sharing/support/users.js';
import { foldSnapshot } from './snapshot.js';
import { allPages, correct, exportLines, finished, getJson, listCorrections, useServerAndClient } from './support.js';

/*
 * GET /api/corrections (PROTOCOL.md §26.2): newest first, paged, filtered, refused when malformed;
 * a deleted session's corrections leave the index; and who sees whose (§21.2).
 */
describe('GET /api/corrections: filters, paging, deletion', () => {
  const env = useServerAndClient();

  it('pages newest first through every filter, and a deleted session leaves the index', async () => {
    const started = new Date().toISOString();
    const sessions: string[] = [];
    for (const task of ['What is 3 * 4?', 'What is 5 * 6?', 'What is 7 * 8?']) {
      const { sessionId, chain } = await finished(env.client, task);
      sessions.push(sessionId);
      await correct(env.client, sessionId, chain[0]!.stepId, `Thinking about ${task}`);
      const call = chainSteps(await snapshotState(sessionId)).find((step) => step.kind === 'tool_call');
      if (call !== undefined) await correct(env.client, sessionId, call.stepId, '{"expression":"1 + 1"}');
    }
    const everything = (await listCorrections(env.http, { since: started })).corrections;
    expect(everything.length).toBeGreaterThanOrEqual(6);
    const ats = everything.map((record) => record.at);
    expect([...ats].sort().reverse()).toEqual(ats);

    const pages = await allPages(env.http, { since: started, limit: '2' });
    expect(pages.slice(0, -1).every((page) => page.corrections.length === 2 && page.nextCursor !== undefined)).toBe(true);
    expect(pages.flatMap((page) => page.corrections)).toEqual(everything);

    const calls = (await listCorrections(env.http, { since: started, kind: 'tool_call' })).corrections;
    expect(calls.length).toBe(3);
    expect(calls.every((record) => record.kind === 'tool_call' && record.tool === 'calculator')).toBe(true);
    expect((await listCorrections(env.http, { since: started, tool: 'calculator', kind: 'thought' })).corrections).toEqual([]);
    expect((await listCorrections(env.http, { since: started, agent: 'demo' })).corrections).toEqual(everything);
    expect((await listCorrections(env.http, { since: started, agent: 'openai' })).corrections).toEqual([]);
    expect((await listCorrections(env.http, { session: sessions[1]! })).corrections.map((record) => record.sessionId)).toEqual([sessions[1], sessions[1]]);
    const by = everything[0]!.by;
    expect((await listCorrections(env.http, { since: started, user: by })).corrections).toEqual(everything);
    expect((await listCorrections(env.http, { since: started, user: 'someone-else' })).corrections).toEqual([]);
    const middle = everything[2]!.at;
    expect((await listCorrections(env.http, { since: started, until: middle })).corrections).toEqual(everything.filter((record) => record.at < middle));
    expect((await listCorrections(env.http, { since: middle })).corrections).toEqual(everything.filter((record) => record.at >= middle));

    const deleted = await fetch(`${env.server.baseUrl}/api/sessions/${sessions[0]}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await listCorrections(env.http, { session: sessions[0]! })).corrections).toEqual([]);
    expect((await listCorrections(env.http, { since: started })).corrections).toEqual(everything.filter((record) => record.sessionId !== sessions[0]));
    expect((await exportLines(env.http, 'sft', { since: started })).lines.map((line) => line.metadata.sessionId)).not.toContain(sessions[0]);
  });

  it('refuses a malformed query with 400 BAD_REQUEST, and serves the next one', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=ten', 'kind=dream', 'since=yesterday', 'colour=red', 'before=not-a-cursor', 'user=', 'limit=2&limit=3']) {
      const answer = await getJson(env.http, `/api/corrections?${query}`);
      expect(answer, query).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', message: expect.any(String) } });
    }
    for (const query of ['', 'format=csv', 'format=sft&limit=3']) {
      const answer = await getJson(env.http, `/api/corrections/export?${query}`);
      expect(answer, query).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    }
    expect((await getJson(env.http, '/api/corrections?limit=1')).status).toBe(200);
  });

  const snapshotState = (sessionId: string) => foldSnapshot(env.server.baseUrl, sessionId);
});

describe('GET /api/corrections: who sees whose', () => {
  const env = useUserServer();
  const { clients } = env;

  async function connect(user: typeof ADA): Promise<TestClient> {
    return clients.connect(wsUrlWith(env.users.server, { token: await env.users.tokenFor(user) }));
  }

  it('a user lists their own and an editor link’s corrections; another user’s never; an admin all; a link alone is refused', async () => {
    const ada = await connect(ADA);
    const bob = await connect(BOB);
    const adas = await finished(ada, 'What is 9 * 9?');
    const adaFix = await correct(ada, adas.sessionId, adas.chain[0]!.stepId, 'Nine nines.');
    const bobs = await finished(bob, 'What is 4 * 4?');
    const bobFix = await correct(bob, bobs.sessionId, bobs.chain[0]!.stepId, 'Four fours.');

    const as = async (user: typeof ADA, extra: { share?: string } = {}) => {
      const answer = await rest(env.users.server, '/api/corrections', { bearer: await env.users.tokenFor(user), ...extra });
      expect(answer.status).toBe(200);
      return (answer.body as { corrections: { correctedStepId: string; by: string; byName?: string }[] }).corrections.map((record) => record.correctedStepId);
    };
    expect(await as(ADA)).toEqual([adaFix]);
    expect(await as(BOB)).toEqual([bobFix]);
    expect(await as(ROOT)).toEqual(expect.arrayContaining([adaFix, bobFix]));
    const [record] = ((await rest(env.users.server, '/api/corrections', { bearer: await env.users.tokenFor(ADA) })).body as { corrections: Record<string, unknown>[] }).corrections;
    expect(record).toMatchObject({ by: ADA.sub, byName: ADA.name });

    const editor = await shareLink(bob, bobs.sessionId, 'editor');
    const viewer = await shareLink(bob, bobs.sessionId, 'viewer');
    expect(await as(ADA, { share: editor.token })).toEqual([bobFix, adaFix]);
    expect(await as(ADA, { share: viewer.token })).toEqual([adaFix]);

    const exported = await rest(env.users.server, '/api/corrections/export?format=sft', { bearer: await env.users.tokenFor(ADA) });
    expect(exported.status).toBe(200);

    for (const path of ['/api/corrections', '/api/corrections/export?format=preference']) {
      const alone = await rest(env.users.server, path, { share: editor.token });
      expect(alone, path).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    }
    const anonymous = await rest(env.users.server, '/api/corrections');
    expect(anonymous.status).toBe(401);
  });
});
