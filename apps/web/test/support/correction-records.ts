import type { CorrectionRecord } from '@interthought/protocol';

/** A correction as `GET /api/corrections` lists it (PROTOCOL.md §26.2), with `extra` over a corrected calculator call. */
export function record(extra: Partial<CorrectionRecord> = {}): CorrectionRecord {
  return {
    sessionId: 'qhIGZHv58RpuAolAU69Ni',
    stepId: 'AD6WA8es6O_lfT6BCjoA8',
    correctedStepId: 'uR03ypDqfTrgaGe8WCXtU',
    index: 2,
    kind: 'tool_call',
    tool: 'calculator',
    correction: 'edited',
    before: '{"expression":"240 * 15%"}',
    after: '{"expression":"240 * 25%"}',
    note: 'the discount is 25%',
    by: 'u_ada',
    byName: 'Ada',
    at: '2026-11-29T16:21:58.955Z',
    task: 'What is 25% off 240?',
    agent: 'demo',
    ...extra,
  };
}

/** A fetch answering from a list of responses (a function may wait), recording the URLs asked. */
export function fetchFrom(responses: Array<() => Response | Promise<Response>>) {
  const urls: string[] = [];
  const fetchImpl = (async (url: string | URL | Request) => {
    urls.push(String(url));
    const next = responses.shift();
    if (!next) throw new TypeError('Failed to fetch');
    return next();
  }) as typeof fetch;
  return { fetchImpl, urls };
}

export const json = (body: unknown, status = 200) => () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
