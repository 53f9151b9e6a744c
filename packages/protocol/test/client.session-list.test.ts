import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InterthoughtError, newestFirst, type SessionInfo } from '../src/index.js';
import { clientOf, closeClients } from './support/clients.js';
import { ScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;

beforeEach(async () => {
  server = await ScriptedServer.start();
});

afterEach(async () => {
  closeClients();
  await server.close();
});

/** Sessions created one second apart, so "newest first" is well defined. */
function addSessions(...ids: string[]): void {
  for (const id of ids) {
    server.addSession(id);
    server.setInfo(id, { createdAt: new Date(Date.UTC(2025, 0, 1) + Number(id.replace(/\D/gu, '')) * 1_000).toISOString() });
  }
}

const ids = (list: readonly SessionInfo[] | undefined) => (list ?? []).map((session) => session.sessionId);

describe('InterthoughtClient.watchSessions', () => {
  it('gets the list, newest first, then every session created, changed or deleted', async () => {
    addSessions('s1', 's2');
    const client = clientOf(server);
    await client.connect();
    const lists: Array<readonly SessionInfo[]> = [];
    client.watchSessions((list) => lists.push(list));
    await vi.waitFor(() => expect(ids(lists.at(-1))).toEqual(['s2', 's1']));

    addSessions('s3');
    await vi.waitFor(() => expect(ids(lists.at(-1))).toEqual(['s3', 's2', 's1']));
    server.setInfo('s1', { status: 'completed' });
    await vi.waitFor(() => expect(lists.at(-1)?.find((session) => session.sessionId === 's1')?.status).toBe('completed'));
    await client.request({ type: 'session.delete', sessionId: 's2' });
    await vi.waitFor(() => expect(ids(lists.at(-1))).toEqual(['s3', 's1']));
    expect(server.requests('sessions.watch')).toHaveLength(1);
  });

  it('applies a change that arrives right behind the answer, in the same read', async () => {
    addSessions('s1');
    server.handler = (message, connection) => {
      if (message.type !== 'sessions.watch') return false;
      connection.watching = true;
      server.send(connection, { type: 'sessions.watching', requestId: message.id, sessions: [server.sessions.get('s1')!.info] });
      server.send(connection, { type: 'sessions.changed', session: { ...server.sessions.get('s1')!.info, status: 'paused' } });
      return true;
    };
    const client = clientOf(server);
    const lists: Array<readonly SessionInfo[]> = [];
    client.watchSessions((list) => lists.push(list));
    await client.connect();
    await vi.waitFor(() => expect(lists.at(-1)?.[0]?.status).toBe('paused'));
  });

  it('watches again after a dropped connection, and the fresh list has what changed meanwhile', async () => {
    addSessions('s1');
    const client = clientOf(server);
    await client.connect();
    const lists: Array<readonly SessionInfo[]> = [];
    client.watchSessions((list) => lists.push(list));
    await vi.waitFor(() => expect(ids(lists.at(-1))).toEqual(['s1']));

    // Changed while the client is away: it cannot hear of it but by watching again.
    server.dropAll();
    addSessions('s2');
    server.sessions.delete('s1');
    await vi.waitFor(() => expect(ids(lists.at(-1))).toEqual(['s2']));
    expect(server.requests('sessions.watch')).toHaveLength(2);
  });

  it('shares one watch between listeners: a later one gets the list at once, the last to stop unwatches', async () => {
    addSessions('s1');
    const client = clientOf(server);
    await client.connect();
    const first: Array<readonly SessionInfo[]> = [];
    const stopFirst = client.watchSessions((list) => first.push(list));
    await vi.waitFor(() => expect(first).toHaveLength(1));
    const second: Array<readonly SessionInfo[]> = [];
    const stopSecond = client.watchSessions((list) => second.push(list));
    expect(ids(second[0])).toEqual(['s1']);

    stopFirst();
    stopFirst();
    expect(server.requests('sessions.unwatch')).toHaveLength(0);
    stopSecond();
    await vi.waitFor(() => expect(server.requests('sessions.unwatch')).toHaveLength(1));
    expect(server.requests('sessions.watch')).toHaveLength(1);
  });

  it('asks again with a wider limit when a later listener wants more sessions', async () => {
    addSessions('s1', 's2', 's3');
    const client = clientOf(server);
    await client.connect();
    const narrow: Array<readonly SessionInfo[]> = [];
    client.watchSessions((list) => narrow.push(list), { limit: 1 });
    await vi.waitFor(() => expect(ids(narrow.at(-1))).toEqual(['s3']));
    client.watchSessions(() => undefined, { limit: 3 });
    await vi.waitFor(() => expect(ids(narrow.at(-1))).toEqual(['s3', 's2', 's1']));
    expect(server.requests('sessions.watch').map((frame) => frame.limit)).toEqual([1, 3]);
  });

  it('tells onError when the server refuses the watch', async () => {
    server.handler = (message, connection) => {
      if (message.type !== 'sessions.watch') return false;
      server.send(connection, { type: 'error', requestId: message.id, code: 'FORBIDDEN', message: 'Not for you.' });
      return true;
    };
    const client = clientOf(server);
    await client.connect();
    const errors: InterthoughtError[] = [];
    client.watchSessions(() => undefined, { onError: (error) => errors.push(error) });
    await vi.waitFor(() => expect(errors.map((error) => error.code)).toEqual(['FORBIDDEN']));
  });

  it('reports an onError that throws to onListenerError instead of leaving a rejected promise behind', async () => {
    server.handler = (message, connection) => {
      if (message.type !== 'sessions.watch') return false;
      server.send(connection, { type: 'error', requestId: message.id, code: 'FORBIDDEN', message: 'Not for you.' });
      return true;
    };
    const failures: unknown[] = [];
    const client = clientOf(server, { onListenerError: (error) => failures.push(error) });
    await client.connect();
    client.watchSessions(() => undefined, {
      onError: () => {
        throw new Error('onError bug');
      },
    });
    await vi.waitFor(() => expect(failures).toEqual([expect.objectContaining({ message: 'onError bug' })]));
  });

  it('keeps a throwing listener from stopping the others', async () => {
    addSessions('s1');
    const failures: unknown[] = [];
    const client = clientOf(server, { onListenerError: (error) => failures.push(error) });
    await client.connect();
    client.watchSessions(() => {
      throw new Error('listener bug');
    });
    const lists: Array<readonly SessionInfo[]> = [];
    client.watchSessions((list) => lists.push(list));
    await vi.waitFor(() => expect(ids(lists.at(-1))).toEqual(['s1']));
    expect(failures).toHaveLength(1);
  });
});

describe('newestFirst', () => {
  it('orders by createdAt, newest first, then by id', () => {
    const at = (sessionId: string, createdAt: string) => ({ sessionId, task: 't', agent: 'demo', status: 'running' as const, revision: 0, createdAt });
    const sorted = [at('a', '2025-01-01T00:00:00.000Z'), at('c', '2025-01-02T00:00:00.000Z'), at('b', '2025-01-01T00:00:00.000Z')].sort(newestFirst);
    expect(ids(sorted)).toEqual(['c', 'b', 'a']);
  });
});
