import { describe, expect, it } from 'vitest';
import { ApiError, RestApi, attachmentName } from '$lib/api/rest-api.js';

/** A fetch that records each request and answers with `respond`. */
function recordingFetch(respond: () => Response) {
  const calls: Array<{ url: string; method: string; headers: Record<string, string>; body: unknown }> = [];
  const fetchImpl = (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), method: init?.method ?? 'GET', headers: Object.fromEntries(new Headers(init?.headers).entries()), body: init?.body });
    return respond();
  }) as typeof fetch;
  return { fetchImpl, calls };
}

describe('RestApi export and import', () => {
  it('fetches an export with the token in a header and names it as the server does', async () => {
    const { fetchImpl, calls } = recordingFetch(
      () => new Response('# Task\n', { status: 200, headers: { 'content-type': 'text/markdown', 'content-disposition': 'attachment; filename="interthought-s 1.md"' } }),
    );
    const file = await new RestApi({ fetch: fetchImpl, token: () => 'secret' }).exportSession('s 1', 'md');
    expect(calls[0]).toMatchObject({ url: '/api/sessions/s%201/export?format=md', method: 'GET' });
    expect(calls[0]?.headers.authorization).toBe('Bearer secret');
    expect(file.fileName).toBe('interthought-s 1.md');
    expect(await file.blob.text()).toBe('# Task\n');
  });

  it('asks for a transcript in the reader’s time zone and language, and the log without them', async () => {
    const { fetchImpl, calls } = recordingFetch(() => new Response('# Task\n', { status: 200 }));
    const api = new RestApi({ fetch: fetchImpl });
    await api.exportSession('s1', 'md', { timeZone: 'Europe/Berlin', lang: 'zh' });
    await api.exportSession('s1', 'json', { timeZone: 'Europe/Berlin', lang: 'zh' });
    expect(calls.map((call) => call.url)).toEqual(['/api/sessions/s1/export?format=md&tz=Europe%2FBerlin&lang=zh', '/api/sessions/s1/export?format=json']);
  });

  it('names an export without a content-disposition after the session', async () => {
    const { fetchImpl } = recordingFetch(() => new Response('{}\n', { status: 200 }));
    expect((await new RestApi({ fetch: fetchImpl }).exportSession('s1', 'json')).fileName).toBe('interthought-s1.ndjson');
    expect(attachmentName(null)).toBeUndefined();
  });

  it('posts an import as NDJSON and answers the new session', async () => {
    const session = { sessionId: 'new', task: 't', agent: 'demo', status: 'completed', revision: 0, createdAt: '2025-01-01T10:00:00.000Z' };
    const { fetchImpl, calls } = recordingFetch(() => new Response(JSON.stringify({ session }), { status: 201 }));
    expect(await new RestApi({ fetch: fetchImpl }).importSession('{"type":"interthought.export"}\n')).toEqual(session);
    expect(calls[0]).toMatchObject({ url: '/api/sessions/import', method: 'POST', body: '{"type":"interthought.export"}\n' });
    expect(calls[0]?.headers['content-type']).toBe('application/x-ndjson');
  });

  it('throws BAD_IMPORT with the line the server named', async () => {
    const { fetchImpl } = recordingFetch(() => new Response(JSON.stringify({ code: 'BAD_IMPORT', message: 'Line 2 is not an event.', line: 2 }), { status: 400 }));
    const error = await new RestApi({ fetch: fetchImpl }).importSession('x').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'BAD_IMPORT', message: 'Line 2 is not an event.', status: 400, line: 2 });
  });
});
