import { describe, expect, it } from 'vitest';
import { ApiError, RestApi } from '$lib/api/rest-api.js';
import { CorrectionsList } from '$lib/corrections/corrections-list.svelte.js';
import { fetchFrom, json, record } from '../../support/correction-records.js';

const listWith = (responses: Parameters<typeof fetchFrom>[0]) => {
  const { fetchImpl, urls } = fetchFrom(responses);
  return { list: new CorrectionsList({ api: new RestApi({ fetch: fetchImpl }) }), urls };
};

describe('CorrectionsList', () => {
  it('loads the first page for the filters, newest first as the server sends it', async () => {
    const first = record({ stepId: 's2', at: '2026-11-29T16:22:00.000Z' });
    const second = record({ stepId: 's1' });
    const { list, urls } = listWith([json({ corrections: [first, second], nextCursor: 'c1' })]);
    expect(list.phase).toBe('loading');
    await list.show({ kind: 'tool_call' });
    expect(urls).toEqual(['/api/corrections?kind=tool_call&limit=20']);
    expect(list.phase).toBe('ready');
    expect(list.records.map((r) => r.stepId)).toEqual(['s2', 's1']);
    expect(list.canLoadMore).toBe(true);
  });

  it('loads more by the cursor and never shows a correction twice', async () => {
    const { list, urls } = listWith([
      json({ corrections: [record({ stepId: 's3' }), record({ stepId: 's2' })], nextCursor: 'c1' }),
      json({ corrections: [record({ stepId: 's2' }), record({ stepId: 's1' })] }),
    ]);
    await list.show({ agent: 'demo' });
    await list.loadMore();
    expect(urls[1]).toBe('/api/corrections?agent=demo&limit=20&before=c1');
    expect(list.records.map((r) => r.stepId)).toEqual(['s3', 's2', 's1']);
    // The last page named no cursor: nothing more to load.
    expect(list.canLoadMore).toBe(false);
  });

  it('keeps what it shows for the same filters, and starts over for others', async () => {
    const { list, urls } = listWith([json({ corrections: [record()] }), json({ corrections: [] })]);
    await list.show({ kind: 'thought', agent: 'demo' });
    await list.show({ agent: 'demo', kind: 'thought' });
    expect(urls).toHaveLength(1);
    await list.show({ kind: 'action' });
    expect(urls).toEqual(['/api/corrections?agent=demo&kind=thought&limit=20', '/api/corrections?kind=action&limit=20']);
    expect(list.records).toEqual([]);
    expect(list.phase).toBe('ready');
  });

  it('drops an answer for filters it no longer shows', async () => {
    let release: (() => void) | undefined;
    const slow = () => new Promise<Response>((resolve) => (release = () => resolve(json({ corrections: [record({ stepId: 'old' })] })())));
    const { list } = listWith([slow, json({ corrections: [record({ stepId: 'new' })] })]);
    const first = list.show({ kind: 'thought' });
    await list.show({ kind: 'tool_call' });
    release?.();
    await first;
    expect(list.filter).toEqual({ kind: 'tool_call' });
    expect(list.records.map((r) => r.stepId)).toEqual(['new']);
  });

  it('says why the first page failed with the server’s code, and tries again', async () => {
    const { list } = listWith([json({ code: 'FORBIDDEN', message: 'A share link cannot list corrections.' }, 403), json({ corrections: [record()] })]);
    await list.show({});
    expect(list.phase).toBe('error');
    expect(list.error).toBeInstanceOf(ApiError);
    expect((list.error as ApiError).code).toBe('FORBIDDEN');
    await list.retry();
    expect(list.phase).toBe('ready');
    expect(list.records).toHaveLength(1);
  });

  it('keeps the list shown when loading more fails, and says so', async () => {
    const { list } = listWith([json({ corrections: [record()], nextCursor: 'c1' })]);
    await list.show({});
    await list.loadMore();
    expect(list.records).toHaveLength(1);
    expect((list.moreError as ApiError).code).toBe('NETWORK');
    expect(list.canLoadMore).toBe(true);
  });

  it('refuses an answer that is not a page of corrections', async () => {
    const { list } = listWith([json({ corrections: [{ stepId: 'x' }] })]);
    await list.show({});
    expect(list.phase).toBe('error');
  });

  it('offers as choices the agents, models, tools, people and sessions it has seen, with the current filter kept', async () => {
    const { list } = listWith([
      json({
        corrections: [
          record({ agent: 'openai', model: 'gpt-x', by: 'u_bo', byName: 'Bo', sessionId: 'sessionTwo0000000000', task: 'Second task' }),
          record({ tool: 'unit_converter' }),
          record({ kind: 'thought', tool: undefined, by: 'c-9', byName: undefined }),
        ],
      }),
    ]);
    await list.show({});
    expect(list.choices('agent')).toEqual(['demo', 'openai']);
    expect(list.choices('model', 'other-model')).toEqual(['gpt-x', 'other-model']);
    expect(list.choices('tool')).toEqual(['calculator', 'unit_converter']);
    expect(list.people()).toEqual([
      { by: 'u_bo', byName: 'Bo' },
      { by: 'u_ada', byName: 'Ada' },
      { by: 'c-9', byName: undefined },
    ]);
    expect(list.sessions()).toEqual([
      { sessionId: 'sessionTwo0000000000', task: 'Second task' },
      { sessionId: 'qhIGZHv58RpuAolAU69Ni', task: 'What is 25% off 240?' },
    ]);
  });
});
