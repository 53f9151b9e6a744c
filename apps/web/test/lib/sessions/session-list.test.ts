import type { SessionInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { ApiError, RestApi } from '$lib/api/rest-api.js';
import { SessionList } from '$lib/sessions/session-list.svelte.js';

const info = (sessionId: string, createdAt: string, status: SessionInfo['status'] = 'running'): SessionInfo => ({
  sessionId,
  task: `task ${sessionId}`,
  agent: 'demo',
  status,
  revision: 0,
  createdAt,
});

/** A fetch answering from a list of responses, recording the URLs asked for. */
function fetchFrom(responses: Array<() => Response>) {
  const urls: string[] = [];
  const fetchImpl = (async (url: string | URL | Request) => {
    urls.push(String(url));
    const next = responses.shift();
    if (!next) throw new TypeError('Failed to fetch');
    return next();
  }) as typeof fetch;
  return { fetchImpl, urls };
}

const json = (body: unknown, status = 200) => () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('SessionList', () => {
  it('loads the newest sessions from GET /api/sessions', async () => {
    const { fetchImpl, urls } = fetchFrom([json({ sessions: [info('b', '2025-01-02T00:00:00Z'), info('a', '2025-01-01T00:00:00Z')] })]);
    const list = new SessionList(new RestApi({ fetch: fetchImpl }), 30);
    await list.refresh();
    expect(urls).toEqual(['/api/sessions?limit=30']);
    expect(list.sessions.map((session) => session.sessionId)).toEqual(['b', 'a']);
    expect(list.loaded).toBe(true);
    expect(list.error).toBeNull();
  });

  it('shows a session started here at once, before the next poll', () => {
    const list = new SessionList(new RestApi({ fetch: fetchFrom([]).fetchImpl }));
    list.upsert(info('a', '2025-01-01T00:00:00Z'));
    list.upsert(info('b', '2025-01-02T00:00:00Z'));
    list.upsert(info('a', '2025-01-01T00:00:00Z', 'completed'));
    expect(list.sessions.map((session) => [session.sessionId, session.status])).toEqual([
      ['b', 'running'],
      ['a', 'completed'],
    ]);
  });

  it('drops a deleted session at once and never brings it back from a poll or an upsert', async () => {
    const stale = { sessions: [info('b', '2025-01-02T00:00:00Z'), info('a', '2025-01-01T00:00:00Z')] };
    const { fetchImpl } = fetchFrom([json(stale), json(stale)]);
    const list = new SessionList(new RestApi({ fetch: fetchImpl }));
    await list.refresh();
    // A poll sent before the deletion may still list it when it is answered.
    const poll = list.refresh();
    list.remove('a');
    expect(list.sessions.map((session) => session.sessionId)).toEqual(['b']);
    await poll;
    list.upsert(info('a', '2025-01-01T00:00:00Z', 'cancelled'));
    expect(list.sessions.map((session) => session.sessionId)).toEqual(['b']);
  });

  it('keeps the last list and reports the error when the server cannot be reached', async () => {
    const { fetchImpl } = fetchFrom([json({ sessions: [info('a', '2025-01-01T00:00:00Z')] })]);
    const list = new SessionList(new RestApi({ fetch: fetchImpl }));
    await list.refresh();
    await list.refresh();
    expect(list.sessions).toHaveLength(1);
    expect(list.error).toBe('The server could not be reached.');
  });
});

describe('RestApi', () => {
  it('turns an error body into an ApiError with the server’s code and message', async () => {
    const { fetchImpl } = fetchFrom([json({ code: 'SESSION_NOT_FOUND', message: 'No session "x".' }, 404)]);
    const error = await new RestApi({ fetch: fetchImpl }).session('x').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'SESSION_NOT_FOUND', message: 'No session "x".', status: 404 });
  });

  it('escapes the session id in the URL', async () => {
    const { fetchImpl, urls } = fetchFrom([json({ session: {}, steps: [], chain: [], seq: 0 })]);
    await new RestApi({ fetch: fetchImpl }).session('a/b?c');
    expect(urls).toEqual(['/api/sessions/a%2Fb%3Fc']);
  });
});
