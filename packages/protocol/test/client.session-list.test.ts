import { describe, expect, it, vi } from 'vitest';
import { InterthoughtClient, InterthoughtError, PROTOCOL_VERSION, newestFirst, type SessionInfo } from '../src/index.js';
import { clientOf, useScriptedServer } from './support/clients.js';
import type { ScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
useScriptedServer((started) => (server = started));

/** Sessions created one second apart, so "newest first" is well defined. */
function addSessions(...ids: string[]): void {
  for (const id of ids) {
    server.addSession(id);
    server.setInfo(id, { createdAt: new Date(Date.UTC(2025, 0, 1) + Number(id.replace(/\D/gu, '')) * 1_000).toISOString() });
  }
}

const ids = (list: readonly SessionInfo[] | undefined) => (list ?? []).map((session) => session.sessionId);

const FAKE_LIMITS = { maxFrameBytes: 1, maxTaskChars: 1, maxCorrectionChars: 1, maxSessionsPerConnection: 1, maxSubscriptionsPerConnection: 1, requestsPerSecond: 1, requestBurst: 1 };

/** A socket the test drives by hand, to deliver frames exactly as it chooses. */
class FakeSocket {
  readyState = 0;
  readonly sent: string[] = [];
  onmessage: ((event: { data: string }) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    this.readyState = 3;
  }
  open(hello: object): void {
    this.readyState = 1;
    this.deliver(hello);
  }
  deliver(...frames: object[]): void {
    for (const frame of frames) this.onmessage?.({ data: JSON.stringify(frame) });
  }
}

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

  it('applies a change that arrives right behind the answer, in the same synchronous delivery', () => {
    const sockets: FakeSocket[] = [];
    const client = new InterthoughtClient({
      url: 'ws://fake/ws',
      WebSocket: class extends FakeSocket {
        constructor() {
          super();
          sockets.push(this);
        }
      },
    });
    const lists: Array<readonly SessionInfo[]> = [];
    client.watchSessions((list) => lists.push(list));
    void client.connect();
    const socket = sockets[0]!;
    socket.open({ type: 'hello', protocol: PROTOCOL_VERSION, serverVersion: 'fake', connectionId: 'c1', capabilities: [], limits: FAKE_LIMITS });
    const watch = JSON.parse(socket.sent[0]!) as { id: string; type: string };
    expect(watch.type).toBe('sessions.watch');
    const info: SessionInfo = { sessionId: 's1', task: 't', agent: 'demo', status: 'running', revision: 0, createdAt: '2025-01-01T00:00:00.000Z' };
    // Both frames in one go, as ws delivers the messages of one TCP read: no microtask runs between them.
    socket.deliver({ type: 'sessions.watching', requestId: watch.id, sessions: [info] }, { type: 'sessions.changed', session: { ...info, status: 'paused' } });
    expect(lists.at(-1)?.[0]?.status).toBe('paused');
    client.close();
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

  it('does not shrink the list of a listener without a limit when a later one asks for fewer', async () => {
    addSessions('s1', 's2', 's3');
    const client = clientOf(server);
    await client.connect();
    const wide: Array<readonly SessionInfo[]> = [];
    client.watchSessions((list) => wide.push(list));
    await vi.waitFor(() => expect(ids(wide.at(-1))).toEqual(['s3', 's2', 's1']));
    const narrow: Array<readonly SessionInfo[]> = [];
    client.watchSessions((list) => narrow.push(list), { limit: 1 });
    expect(ids(narrow.at(-1))).toEqual(['s3', 's2', 's1']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ids(wide.at(-1))).toEqual(['s3', 's2', 's1']);
    expect(server.requests('sessions.watch')).toHaveLength(1);
  });

  it('keeps only the newest `limit` sessions as changes come in', async () => {
    addSessions('s1', 's2');
    const client = clientOf(server);
    await client.connect();
    const lists: Array<readonly SessionInfo[]> = [];
    client.watchSessions((list) => lists.push(list), { limit: 2 });
    await vi.waitFor(() => expect(ids(lists.at(-1))).toEqual(['s2', 's1']));
    addSessions('s3');
    await vi.waitFor(() => expect(ids(lists.at(-1))).toEqual(['s3', 's2']));
    // A change to a session older than the window does not bring it back in.
    server.setInfo('s1', { status: 'completed' });
    server.setInfo('s3', { status: 'completed' });
    await vi.waitFor(() => expect(lists.at(-1)?.[0]?.status).toBe('completed'));
    expect(ids(lists.at(-1))).toEqual(['s3', 's2']);
  });

  it('asks again after a busy server refused the watch (RATE_LIMITED), without troubling onError', async () => {
    addSessions('s1');
    let refusals = 1;
    server.handler = (message, connection) => {
      if (message.type !== 'sessions.watch' || refusals-- <= 0) return false;
      server.send(connection, { type: 'error', requestId: message.id, code: 'RATE_LIMITED', message: 'Slow down.' });
      return true;
    };
    const client = clientOf(server);
    await client.connect();
    const errors: unknown[] = [];
    const lists: Array<readonly SessionInfo[]> = [];
    client.watchSessions((list) => lists.push(list), { onError: (error) => errors.push(error) });
    await vi.waitFor(() => expect(ids(lists.at(-1))).toEqual(['s1']), { timeout: 3_000 });
    expect(server.requests('sessions.watch')).toHaveLength(2);
    expect(errors).toEqual([]);
  });

  it('unwatches even when stopped before the connection opened: the server is not left pushing to nobody', async () => {
    const client = clientOf(server);
    const opened = client.connect();
    const stop = client.watchSessions(() => undefined);
    stop();
    await opened;
    await vi.waitFor(() => expect(server.requests('sessions.unwatch')).toHaveLength(1));
    expect(server.received.map(({ frame }) => frame.type)).toEqual(['sessions.watch', 'sessions.unwatch']);
    expect(server.connections[0]!.watching).toBe(false);
  });

  it('does not bring back the answer to a watch stopped before it came: a later listener gets the fresh list', async () => {
    addSessions('s1', 's2');
    let held: (() => void) | undefined;
    server.handler = (message, connection) => {
      if (message.type !== 'sessions.watch' || held !== undefined) return false;
      const stale = [...server.sessions.values()].map((session) => session.info).reverse();
      held = () => server.send(connection, { type: 'sessions.watching', requestId: message.id, sessions: stale });
      return true;
    };
    const client = clientOf(server);
    await client.connect();
    const stop = client.watchSessions(() => undefined);
    await vi.waitFor(() => expect(held).toBeDefined());
    stop();
    server.sessions.delete('s1');
    held!();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later: Array<readonly SessionInfo[]> = [];
    client.watchSessions((list) => later.push(list));
    await vi.waitFor(() => expect(later.length).toBeGreaterThan(0));
    expect(later.every((list) => !ids(list).includes('s1'))).toBe(true);
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
