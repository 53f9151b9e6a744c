import { describe, expect, it } from 'vitest';
import { ApiError, RestApi } from '$lib/api/rest-api.js';

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

describe('RestApi', () => {
  it('asks GET /api/agents for the agents', async () => {
    const agents = [{ name: 'demo', description: 'Offline demo', available: true, default: true }];
    const { fetchImpl, urls } = fetchFrom([json(agents)]);
    expect(await new RestApi({ fetch: fetchImpl }).agents()).toEqual(agents);
    expect(urls).toEqual(['/api/agents']);
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
});
