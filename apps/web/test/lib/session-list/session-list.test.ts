import { InterthoughtError, type InterthoughtClient, type SessionInfo, type SessionPage } from '@interthought/protocol';
import type { RestApi } from '$lib/api/rest-api.js';
import { describe, expect, it } from 'vitest';
import { SessionList } from '$lib/session-list/session-list.svelte.js';

const info = (sessionId: string, createdAt: string, status: SessionInfo['status'] = 'running'): SessionInfo => ({
  sessionId,
  task: `task ${sessionId}`,
  agent: 'demo',
  status,
  revision: 0,
  createdAt,
});

type WatchOptions = Parameters<InterthoughtClient['watchSessions']>[1];

/** A client whose `watchSessions` records who listens, so a test can push lists and refusals as the server would. */
function fakeClient() {
  const watches: Array<{ onChange: (sessions: readonly SessionInfo[]) => void; options: WatchOptions; stopped: boolean }> = [];
  const client: Pick<InterthoughtClient, 'watchSessions'> = {
    watchSessions(onChange, options) {
      const watch = { onChange, options, stopped: false };
      watches.push(watch);
      return () => (watch.stopped = true);
    },
  };
  const live = () => watches.filter((watch) => !watch.stopped);
  return {
    client,
    watches,
    push: (sessions: SessionInfo[]) => live().forEach((watch) => watch.onChange(sessions)),
    refuse: (error: InterthoughtError) => live().forEach((watch) => watch.options?.onError?.(error)),
  };
}

const ids = (list: SessionList) => list.sessions.map((session) => session.sessionId);

/** For tests that never page: asking for a page fails them. */
const noPages: Pick<RestApi, 'sessions'> = { sessions: () => Promise.reject(new TypeError('no older pages in this test')) };

/** Pages answered from a script, recording what was asked. */
function pagesFrom(pages: SessionPage[]) {
  const asked: Array<{ limit?: number; before?: string }> = [];
  const api: Pick<RestApi, 'sessions'> = {
    sessions: async (options = {}) => {
      asked.push(options);
      const page = pages.shift();
      if (!page) throw new TypeError('Failed to fetch');
      return page;
    },
  };
  return { api, asked };
}
const a = info('a', '2025-01-01T00:00:00Z');
const b = info('b', '2025-01-02T00:00:00Z');

describe('SessionList', () => {
  it('watches the list with its limit once started, and shows each list the server pushes', () => {
    const fake = fakeClient();
    const list = new SessionList(fake.client, noPages, 30);
    expect(fake.watches).toHaveLength(0);
    list.start();
    expect(fake.watches.map((watch) => watch.options?.limit)).toEqual([30]);
    expect(list.loaded).toBe(false);

    fake.push([b, a]);
    expect(ids(list)).toEqual(['b', 'a']);
    expect(list.loaded).toBe(true);
    fake.push([info('c', '2025-01-03T00:00:00Z'), { ...b, status: 'completed' }, a]);
    expect(list.sessions.map((session) => [session.sessionId, session.status])).toEqual([
      ['c', 'running'],
      ['b', 'completed'],
      ['a', 'running'],
    ]);
    // A session deleted elsewhere is simply absent from the next list.
    fake.push([a]);
    expect(ids(list)).toEqual(['a']);
  });

  it('stops watching on stop(), and a second start() leaves one watch, not two', () => {
    const fake = fakeClient();
    const list = new SessionList(fake.client, noPages);
    list.start();
    list.start();
    expect(fake.watches.map((watch) => watch.stopped)).toEqual([true, false]);
    list.stop();
    expect(fake.watches.every((watch) => watch.stopped)).toBe(true);
    fake.push([a]);
    expect(list.sessions).toEqual([]);
  });

  it('shows a session started here at once, newest first, until the server’s list replaces it', () => {
    const fake = fakeClient();
    const list = new SessionList(fake.client, noPages);
    list.start();
    list.upsert(a);
    list.upsert(b);
    list.upsert({ ...a, status: 'completed' });
    expect(list.sessions.map((session) => [session.sessionId, session.status])).toEqual([
      ['b', 'running'],
      ['a', 'completed'],
    ]);
    fake.push([{ ...b, status: 'paused' }]);
    expect(list.sessions.map((session) => [session.sessionId, session.status])).toEqual([['b', 'paused']]);
  });

  it('drops a session deleted here at once and never brings it back from a later list or an upsert', () => {
    const fake = fakeClient();
    const list = new SessionList(fake.client, noPages);
    list.start();
    fake.push([b, a]);
    list.remove('a');
    expect(ids(list)).toEqual(['b']);
    // A list the server sent before it heard of the deletion still has it.
    fake.push([b, a]);
    list.upsert({ ...a, status: 'cancelled' });
    expect(ids(list)).toEqual(['b']);
  });

  it('keeps the last list and shows a refused watch until the next list arrives', () => {
    const fake = fakeClient();
    const list = new SessionList(fake.client, noPages);
    list.start();
    fake.push([a]);
    fake.refuse(new InterthoughtError('RATE_LIMITED', 'Too many requests: wait a moment.'));
    expect(list.error).toBe('Too many requests: wait a moment.');
    expect(ids(list)).toEqual(['a']);
    fake.push([b, a]);
    expect(list.error).toBeNull();
    expect(ids(list)).toEqual(['b', 'a']);
  });

  it('offers older sessions only once the window is full, then pages from the newest with the server’s cursors', async () => {
    const fake = fakeClient();
    const c = info('c', '2025-01-03T00:00:00Z');
    const { api, asked } = pagesFrom([{ sessions: [c, b], nextCursor: 'cur-1' }, { sessions: [a], nextCursor: 'cur-2' }, { sessions: [] }]);
    const list = new SessionList(fake.client, api, 2);
    list.start();
    fake.push([c]);
    expect(list.canLoadOlder).toBe(false);
    fake.push([c, b]);
    expect(list.canLoadOlder).toBe(true);

    await list.loadOlder();
    expect(asked).toEqual([{ limit: 2 }, { limit: 2, before: 'cur-1' }]);
    expect(ids(list)).toEqual(['c', 'b', 'a']);
    expect(list.canLoadOlder).toBe(true);
    await list.loadOlder();
    expect(asked.at(-1)).toEqual({ limit: 2, before: 'cur-2' });
    expect(list.canLoadOlder).toBe(false);
    expect(list.loadingOlder).toBe(false);
  });

  it('keeps the pushed copy of a session over an older page’s, and keeps deleted sessions out of older pages', async () => {
    const fake = fakeClient();
    const stale = info('b', '2025-01-02T00:00:00Z', 'running');
    const { api } = pagesFrom([{ sessions: [stale, a] }]);
    const list = new SessionList(fake.client, api, 1);
    list.start();
    fake.push([info('b', '2025-01-02T00:00:00Z', 'completed')]);
    list.remove('a');
    await list.loadOlder();
    expect(list.sessions).toEqual([info('b', '2025-01-02T00:00:00Z', 'completed')]);
    expect(list.canLoadOlder).toBe(false);
  });

  it('says why older sessions could not be fetched, and lets the user try again', async () => {
    const fake = fakeClient();
    const { api } = pagesFrom([]);
    const list = new SessionList(fake.client, api, 1);
    list.start();
    fake.push([b]);
    await list.loadOlder();
    expect(list.olderError).toBe('Failed to fetch');
    expect(list.canLoadOlder).toBe(true);
    expect(list.loadingOlder).toBe(false);
  });
});
