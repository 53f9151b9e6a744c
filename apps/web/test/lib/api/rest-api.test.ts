import { describe, expect, it } from 'vitest';
import { ApiError, RestApi } from '$lib/api/rest-api.js';

/** A fetch answering from a list of responses, recording the URLs and headers asked with. */
function fetchFrom(responses: Array<() => Response>) {
  const urls: string[] = [];
  const headers: Array<Record<string, string>> = [];
  const fetchImpl = (async (url: string | URL | Request, init?: RequestInit) => {
    urls.push(String(url));
    headers.push(Object.fromEntries(new Headers(init?.headers).entries()));
    const next = responses.shift();
    if (!next) throw new TypeError('Failed to fetch');
    return next();
  }) as typeof fetch;
  return { fetchImpl, urls, headers };
}

const json = (body: unknown, status = 200) => () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('RestApi', () => {
  it('asks GET /api/agents for the agents', async () => {
    const agents = [{ name: 'demo', description: 'Offline demo', available: true, default: true }];
    const { fetchImpl, urls } = fetchFrom([json(agents)]);
    expect(await new RestApi({ fetch: fetchImpl }).agents()).toEqual(agents);
    expect(urls).toEqual(['/api/agents']);
  });

  it('asks GET /api/tools for the tools agents may call', async () => {
    const tools = [{ name: 'calculator', description: 'Arithmetic.', source: 'builtin', inputSchema: {}, readOnly: true }];
    const { fetchImpl, urls } = fetchFrom([json({ tools })]);
    expect(await new RestApi({ fetch: fetchImpl }).tools()).toEqual(tools);
    expect(urls).toEqual(['/api/tools']);
  });

  it('asks GET /api/sessions for a page of the given size after a cursor', async () => {
    const { fetchImpl, urls } = fetchFrom([json({ sessions: [] })]);
    expect(await new RestApi({ fetch: fetchImpl }).sessions({ limit: 30, before: 'abc' })).toEqual({ sessions: [] });
    expect(urls).toEqual(['/api/sessions?limit=30&before=abc']);
  });

  it('turns an error body into an ApiError with the server’s code and message', async () => {
    const { fetchImpl } = fetchFrom([json({ code: 'UNAUTHORIZED', message: 'Send the server token.' }, 401)]);
    const error = await new RestApi({ fetch: fetchImpl }).agents().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', message: 'Send the server token.', status: 401 });
  });

  it('reports a server it cannot reach as a NETWORK ApiError', async () => {
    const error = await new RestApi({ fetch: fetchFrom([]).fetchImpl }).agents().catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'NETWORK', message: 'The server could not be reached.', status: 0 });
  });

  it('asks for the agents in the UI’s language when told it', async () => {
    const { fetchImpl, urls } = fetchFrom([json([]), json([])]);
    const api = new RestApi({ fetch: fetchImpl });
    await api.agents(undefined, 'zh');
    await api.agents();
    expect(urls).toEqual(['/api/agents?lang=zh', '/api/agents']);
  });

  it('sends no Authorization header when the page has no token', async () => {
    const { fetchImpl, headers } = fetchFrom([json([])]);
    await new RestApi({ fetch: fetchImpl }).agents();
    expect(headers[0]).toEqual({ accept: 'application/json' });
  });

  it('presents the current token as a Bearer header on every call, asked for at each call', async () => {
    let token = 'first-token';
    const { fetchImpl, urls, headers } = fetchFrom([json([]), json({ sessions: [] })]);
    const api = new RestApi({ fetch: fetchImpl, token: () => token });
    await api.agents();
    token = 'pasted-token';
    await api.sessions({ limit: 5 });
    expect(headers.map((sent) => sent.authorization)).toEqual(['Bearer first-token', 'Bearer pasted-token']);
    // Never in the address: URLs end up in logs and history.
    expect(urls).toEqual(['/api/agents', '/api/sessions?limit=5']);
  });

  it('sends a token a header cannot carry (non-ASCII) as ?token= instead', async () => {
    const { fetchImpl, urls, headers } = fetchFrom([json({ sessions: [] })]);
    await new RestApi({ fetch: fetchImpl, token: () => '密码密码密码密码' }).sessions({ limit: 5 });
    expect(urls).toEqual([`/api/sessions?limit=5&token=${encodeURIComponent('密码密码密码密码')}`]);
    expect(headers[0]?.authorization).toBeUndefined();
  });

  it('tells onUnauthorized which token a 401 answered, and still rejects with UNAUTHORIZED', async () => {
    const refused: Array<string | undefined> = [];
    const unauthorized = json({ code: 'UNAUTHORIZED', message: 'Send the server token.' }, 401);
    const { fetchImpl } = fetchFrom([unauthorized, unauthorized, json({ code: 'NOT_FOUND', message: 'gone' }, 404)]);
    let token: string | undefined;
    const api = new RestApi({ fetch: fetchImpl, token: () => token });
    api.onUnauthorized((used) => refused.push(used));
    await expect(api.agents()).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    token = 'wrong-token';
    await expect(api.agents()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(api.agents()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(refused).toEqual([undefined, 'wrong-token']);
  });

  it('checks access without throwing: granted, unauthorized on 401, unreachable when the server is down', async () => {
    const { fetchImpl, headers } = fetchFrom([json([]), json({ code: 'UNAUTHORIZED', message: 'no' }, 401), json({ code: 'INTERNAL', message: 'oops' }, 500)]);
    const api = new RestApi({ fetch: fetchImpl, token: () => 's3cret-t0ken' });
    expect(await api.checkAccess()).toEqual({ access: 'granted' });
    expect(await api.checkAccess()).toEqual({ access: 'unauthorized' });
    // Any other answer means the token is not the trouble.
    expect(await api.checkAccess()).toEqual({ access: 'granted' });
    expect(await api.checkAccess()).toEqual({ access: 'unreachable' });
    expect(headers[0]?.authorization).toBe('Bearer s3cret-t0ken');
  });

  it('presents the page’s share link in its header on every call (as ?share= when a header cannot carry it)', async () => {
    const { fetchImpl, urls, headers } = fetchFrom([json([]), json([])]);
    let share = 'sh.tok-1';
    const api = new RestApi({ fetch: fetchImpl, share: () => share });
    await api.agents();
    share = '共享';
    await api.agents();
    expect(headers[0]?.['x-interthought-share']).toBe('sh.tok-1');
    expect(headers[0]?.authorization).toBeUndefined();
    expect(urls[1]).toBe(`/api/agents?share=${encodeURIComponent('共享')}`);
  });

  it('checks access with GET /api/me: who the page is, granted when signed in or holding a link the server grants', async () => {
    const ada = { auth: 'jwt', signedIn: true, user: { id: 'u-ada', name: 'Ada', admin: false } };
    const signedOut = { auth: 'jwt', signedIn: false, reason: 'the token expired' };
    const viaLink = { auth: 'jwt', signedIn: false, share: { sessionId: 's1', shareId: 'sh1', role: 'viewer' } };
    const open = { auth: 'none', signedIn: true };
    const { fetchImpl, urls } = fetchFrom([json(ada), json(signedOut), json(viaLink), json(open)]);
    const api = new RestApi({ fetch: fetchImpl });
    expect(await api.checkAccess()).toEqual({ access: 'granted', me: ada });
    expect(await api.checkAccess()).toEqual({ access: 'unauthorized', me: signedOut });
    expect(await api.checkAccess()).toEqual({ access: 'granted', me: viaLink });
    expect(await api.checkAccess()).toEqual({ access: 'granted', me: open });
    expect(urls).toEqual(['/api/me', '/api/me', '/api/me', '/api/me']);
  });
});
