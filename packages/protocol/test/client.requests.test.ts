import { describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { InterthoughtClient, InterthoughtError, type ConnectionState, type CorrectionAccepted } from '../src/index.js';
import { clientOf, useScriptedServer } from './support/clients.js';
import type { ScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
useScriptedServer((started) => (server = started));

describe('InterthoughtClient connection', () => {
  it('goes from connecting to open and keeps the hello', async () => {
    const client = clientOf(server);
    const states: ConnectionState[] = [];
    client.onStateChange((state) => states.push(state));
    const hello = await client.connect();
    expect(hello).toMatchObject({ type: 'hello', protocol: 'interthought/1', connectionId: 'conn_0' });
    expect(client.hello).toEqual(hello);
    expect(client.state).toBe('open');
    expect(states).toEqual(['connecting', 'open']);
  });

  it('reports every state through a drop, the reconnection and close', async () => {
    const client = clientOf(server);
    const states: ConnectionState[] = [];
    const stop = client.onStateChange((state) => states.push(state));
    await client.connect();
    server.dropAll();
    await vi.waitFor(() => expect(client.hello?.connectionId).toBe('conn_1'));
    client.close();
    expect(states).toEqual(['connecting', 'open', 'reconnecting', 'open', 'closed']);
    stop();
    await client.connect();
    expect(states).toHaveLength(5);
  });

  it('tells when the next attempt starts while reconnecting, and retries at once on demand', async () => {
    const client = clientOf(server, { backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 } });
    await client.connect();
    server.dropAll();
    await vi.waitFor(() => expect(client.state).toBe('reconnecting'));
    expect(client.reconnectAt).toBeGreaterThan(Date.now() - 1);
    client.reconnectNow();
    await vi.waitFor(() => expect(client.state).toBe('open'));
    expect(client.reconnectAt).toBeUndefined();
  });

  it('sends the token as the token query parameter', async () => {
    const client = clientOf(server, { url: `${server.url}?lang=zh`, token: 'se cret&=' });
    await client.connect();
    expect(server.urls).toEqual(['/ws?lang=zh&token=se%20cret%26%3D']);
  });

  it('asks a token function again before each attempt, so a changed token is used from the next one', async () => {
    let token: string | undefined;
    const client = clientOf(server, { token: () => token });
    await client.connect();
    token = 'pasted';
    server.dropAll();
    await vi.waitFor(() => expect(client.hello?.connectionId).toBe('conn_1'));
    expect(server.urls).toEqual(['/ws', '/ws?token=pasted']);
  });

  it('gives up a connection whose server never says hello, and tries again', async () => {
    const silent = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => silent.once('listening', () => resolve()));
    let connections = 0;
    silent.on('connection', () => connections++);
    const client = clientOf(server, { url: `ws://127.0.0.1:${(silent.address() as AddressInfo).port}/ws`, requestTimeoutMs: 50 });
    const states: ConnectionState[] = [];
    client.onStateChange((state) => states.push(state));
    void client.connect().catch(() => undefined);
    await vi.waitFor(() => expect(connections).toBeGreaterThanOrEqual(2));
    expect(states.slice(0, 2)).toEqual(['connecting', 'reconnecting']);
    expect(client.state).not.toBe('open');
    client.close();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('keeps retrying while the server is down, then connects', async () => {
    const url = server.url;
    const port = Number(new URL(url).port);
    await server.close();
    const client = clientOf(server, { url });
    const opened = client.connect();
    await vi.waitFor(() => expect(client.state).toBe('reconnecting'));
    const revived = new WebSocketServer({ host: '127.0.0.1', port });
    revived.on('connection', (socket) =>
      socket.send(JSON.stringify({ type: 'hello', protocol: 'interthought/1', serverVersion: 'x', connectionId: 'c', capabilities: [], limits: {} })),
    );
    await expect(opened).resolves.toMatchObject({ connectionId: 'c' });
    client.close();
    await new Promise<void>((resolve) => revived.close(() => resolve()));
  });

  it('fails connect() at once when the URL cannot be opened', async () => {
    const client = clientOf(server, { url: 'not a url' });
    await expect(client.connect()).rejects.toMatchObject({ name: 'InterthoughtError', code: 'DISCONNECTED' });
    expect(client.state).toBe('closed');
  });

  it('uses the global WebSocket by default, and says so when the runtime has none', async () => {
    const globals = globalThis as { WebSocket?: unknown };
    const own = Object.getOwnPropertyDescriptor(globals, 'WebSocket');
    try {
      globals.WebSocket = WebSocket;
      const client = new InterthoughtClient({ url: server.url });
      await expect(client.connect()).resolves.toMatchObject({ type: 'hello' });
      client.close();
      delete globals.WebSocket;
      const without = new InterthoughtClient({ url: server.url });
      await expect(without.connect()).rejects.toThrow(/No WebSocket implementation/);
    } finally {
      if (own) Object.defineProperty(globals, 'WebSocket', own);
      else delete globals.WebSocket;
    }
  });

  it('rejects the wait for a connection when closed first', async () => {
    const url = server.url;
    await server.close();
    const client = clientOf(server, { url });
    const opened = client.connect();
    client.close();
    await expect(opened).rejects.toMatchObject({ code: 'DISCONNECTED' });
  });
});

describe('InterthoughtClient requests', () => {
  it('matches concurrent answers to their requests when the server answers out of order', async () => {
    const held: Array<{ stepId: string; requestId: string | undefined; send: (frame: object) => void }> = [];
    server.handler = (message, connection) => {
      if (message.type !== 'step.correct') return false;
      held.push({ stepId: message.stepId, requestId: message.id, send: (frame) => server.send(connection, frame) });
      if (held.length === 3) {
        for (const { stepId, requestId, send } of [...held].reverse()) {
          send({ type: 'correction.accepted', requestId, sessionId: 's', stepId, newStepId: `${stepId}_new`, revision: 1 });
        }
      }
      return true;
    };
    const client = clientOf(server);
    await client.connect();
    const answers = await Promise.all(
      ['st_1', 'st_2', 'st_3'].map((stepId) => client.request({ type: 'step.correct', sessionId: 's', stepId, content: 'fixed' })),
    );
    expect(answers.map((answer: CorrectionAccepted) => [answer.stepId, answer.newStepId])).toEqual([
      ['st_1', 'st_1_new'],
      ['st_2', 'st_2_new'],
      ['st_3', 'st_3_new'],
    ]);
    const ids = server.requests('step.correct').map((frame) => frame.id);
    expect(new Set(ids).size).toBe(3);
  });

  it("rejects with the server's error code, message, details and request id", async () => {
    server.handler = (message, connection) => {
      server.send(connection, {
        type: 'error',
        requestId: message.id,
        code: 'BAD_CORRECTION',
        message: 'The tool input is not valid JSON.',
        details: [{ path: ['content'], message: 'Unexpected token' }],
      });
      return true;
    };
    const client = clientOf(server);
    await client.connect();
    const failure = client.request({ type: 'step.correct', sessionId: 's', stepId: 'st_1', content: '{' });
    await expect(failure).rejects.toBeInstanceOf(InterthoughtError);
    await expect(failure).rejects.toMatchObject({
      code: 'BAD_CORRECTION',
      message: 'The tool input is not valid JSON.',
      details: [{ path: ['content'], message: 'Unexpected token' }],
      requestId: server.requests('step.correct')[0]?.id,
    });
  });

  it('rejects with TIMEOUT when no answer arrives, and ignores the late answer', async () => {
    let late: (() => void) | undefined;
    server.addSession('sess_1');
    server.handler = (message, connection) => {
      if (message.type !== 'session.pause' || late) return false;
      late = () => server.send(connection, { type: 'session.status', requestId: message.id, sessionId: 'sess_1', seq: 1, at: 'now', status: 'paused' });
      return true;
    };
    const client = clientOf(server, { requestTimeoutMs: 60 });
    await client.connect();
    await expect(client.request({ type: 'session.pause', sessionId: 'sess_1' })).rejects.toMatchObject({ code: 'TIMEOUT' });
    late?.();
    await expect(client.request({ type: 'session.pause', sessionId: 'sess_1' })).resolves.toMatchObject({ type: 'session.status', status: 'paused' });
  });

  it('rejects a sent request with DISCONNECTED when the connection drops before its answer', async () => {
    server.handler = (message, connection) => {
      if (message.type !== 'session.cancel') return false;
      connection.socket.terminate();
      return true;
    };
    const client = clientOf(server);
    await client.connect();
    await expect(client.request({ type: 'session.cancel', sessionId: 'sess_1' })).rejects.toMatchObject({ code: 'DISCONNECTED' });
  });

  it('holds requests made while reconnecting and sends them once open', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    await client.connect();
    const answered = new Promise((resolve) => {
      client.onStateChange((state) => {
        if (state === 'reconnecting') resolve(client.request({ type: 'session.resume', sessionId: 'sess_1' }));
      });
    });
    server.dropAll();
    const answer = await answered;
    expect(answer).toMatchObject({ type: 'session.status', status: 'running', sessionId: 'sess_1' });
    expect(server.received.find(({ frame }) => frame.type === 'session.resume')?.connection).toBe(1);
  });

  it('answers pause, resume and cancel with the session.status event that carries the request id', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    await client.connect();
    const paused = await client.request({ type: 'session.pause', sessionId: 'sess_1' });
    expect(paused).toMatchObject({ type: 'session.status', status: 'paused', requestId: server.requests('session.pause')[0]?.id });
    await expect(client.request({ type: 'session.cancel', sessionId: 'sess_1' })).resolves.toMatchObject({ status: 'cancelled' });
    await expect(client.request({ type: 'session.resume', sessionId: 'nope' })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('answers subagent.cancel with the subagent.status event that carries the request id, and passes on its refusals', async () => {
    server.addSession('sess_1');
    server.log('sess_1', { type: 'step.started', step: { stepId: 'd1', parentId: null, index: 0, kind: 'tool_call', status: 'streaming', content: '', revision: 0, tool: 'delegate' } });
    server.log('sess_1', { type: 'step.completed', stepId: 'd1', content: '{"task":"part"}', tool: 'delegate' });
    server.log('sess_1', { type: 'subagent.started', scope: 'd1', depth: 1, name: 'part', agent: 'demo', task: 'part' });
    const client = clientOf(server);
    await client.connect();
    const cancelled = await client.cancelSubagent('sess_1', 'd1');
    expect(cancelled).toEqual({ type: 'subagent.status', sessionId: 'sess_1', seq: 4, at: expect.any(String), scope: 'd1', status: 'cancelled', requestId: server.requests('subagent.cancel')[0]?.id });
    expect(server.requests('subagent.cancel')[0]).toMatchObject({ type: 'subagent.cancel', sessionId: 'sess_1', scope: 'd1' });
    await expect(client.cancelSubagent('sess_1', 'd1')).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(client.cancelSubagent('sess_1', 'nope')).rejects.toMatchObject({ code: 'STEP_NOT_FOUND' });
    await expect(client.cancelSubagent('nope', 'd1')).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('answers session.delete with the session.deleted event that carries the request id, and refuses a second one', async () => {
    server.addSession('sess_1');
    server.log('sess_1', { type: 'session.status', status: 'running' });
    const client = clientOf(server);
    await client.connect();
    const deleted = await client.request({ type: 'session.delete', sessionId: 'sess_1' });
    expect(deleted).toEqual({ type: 'session.deleted', sessionId: 'sess_1', seq: 2, at: expect.any(String), requestId: server.requests('session.delete')[0]?.id });
    await expect(client.request({ type: 'session.delete', sessionId: 'sess_1' })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('does not take an event carrying the request id of another request type as its answer', async () => {
    server.handler = (message, connection) => {
      if (message.type !== 'step.correct') return false;
      server.send(connection, { type: 'session.unsubscribed', requestId: message.id, sessionId: 's' });
      server.send(connection, { type: 'correction.accepted', requestId: message.id, sessionId: 's', stepId: 'a', newStepId: 'b', revision: 2 });
      return true;
    };
    const client = clientOf(server);
    await client.connect();
    await expect(client.request({ type: 'step.correct', sessionId: 's', stepId: 'a', content: 'x' })).resolves.toMatchObject({
      type: 'correction.accepted',
      revision: 2,
    });
  });

  it('rejects requests with DISCONNECTED once closed, and those still waiting when it closes', async () => {
    server.handler = () => true;
    const client = clientOf(server);
    await expect(client.request({ type: 'session.pause', sessionId: 's' })).rejects.toMatchObject({ code: 'DISCONNECTED' });
    await client.connect();
    const waiting = client.request({ type: 'session.pause', sessionId: 's' });
    client.close();
    await expect(waiting).rejects.toMatchObject({ code: 'DISCONNECTED' });
  });

  it('refuses, without sending them, requests that plain JavaScript gets wrong', async () => {
    const client = clientOf(server);
    await client.connect();
    await expect(client.request({ type: 'session.rename', sessionId: 's' } as never)).rejects.toMatchObject({ code: 'UNKNOWN_TYPE' });
    await expect(client.request({ type: 'session.subscribe', sessionId: 's', afterSeq: 1n } as never)).rejects.toMatchObject({ code: 'BAD_FRAME' });
    expect(server.received).toEqual([]);
  });

  it('sends requests as JSON with a generated id of at most 64 characters', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    await client.connect();
    await client.request({ type: 'session.subscribe', sessionId: 'sess_1', afterSeq: 0 });
    const [frame] = server.requests('session.subscribe');
    expect(frame).toEqual({ type: 'session.subscribe', sessionId: 'sess_1', afterSeq: 0, id: expect.any(String) });
    expect(frame?.id?.length).toBeLessThanOrEqual(64);
  });
});

describe('InterthoughtClient frames', () => {
  it('ignores non-JSON frames and unknown types, and passes known frames to onMessage', async () => {
    const client = clientOf(server);
    const types: string[] = [];
    client.onMessage((frame) => types.push(frame.type));
    await client.connect();
    const [connection] = server.connections;
    connection!.socket.send('not json');
    connection!.socket.send('[1,2]');
    server.send(connection!, { type: 'session.renamed', sessionId: 's', title: 'new' });
    server.send(connection!, { type: 'session.unsubscribed', sessionId: 's', futureField: true });
    await vi.waitFor(() => expect(types).toEqual(['hello', 'session.unsubscribed']));
  });

  it('keeps delivering when a listener throws, and reports the error', async () => {
    const reported: unknown[] = [];
    const client = clientOf(server, { onListenerError: (error) => reported.push(error) });
    const seen: string[] = [];
    client.onMessage(() => {
      throw new Error('listener bug');
    });
    client.onMessage((frame) => seen.push(frame.type));
    await client.connect();
    expect(seen).toEqual(['hello']);
    expect(reported).toEqual([new Error('listener bug')]);
  });
});
