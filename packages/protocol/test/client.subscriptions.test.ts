import { describe, expect, it, vi } from 'vitest';
import type { InterthoughtError, SessionUpdate } from '../src/index.js';
import { clientOf, describeUpdates, eventSeqs, range, useScriptedServer } from './support/clients.js';
import { buildSession, type SessionAction } from './support/legal-session.js';
import type { EventBody, ScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
useScriptedServer((started) => (server = started));

/** A realistic run (streamed steps, a tool call, two corrections) as event bodies for the scripted server. */
function runBodies(): EventBody[] {
  const actions: SessionAction[] = [];
  for (let i = 0; i < 6; i++) {
    actions.push({ kind: 'start', stepKind: i % 3 === 1 ? 'tool_call' : 'thought' });
    for (let j = 0; j < 5; j++) actions.push({ kind: 'delta', text: `t${i}.${j} ` });
    actions.push({ kind: 'complete' });
    if (i === 2 || i === 4) actions.push({ kind: 'correct', position: i, content: `corrected ${i}`, note: undefined });
  }
  actions.push({ kind: 'status', status: 'completed' });
  return buildSession(actions).events.map(({ sessionId, seq, at, ...body }) => {
    void sessionId, seq, at;
    return body as EventBody;
  });
}

const status = (value: 'running' | 'paused'): EventBody => ({ type: 'session.status', status: value });

describe('subscribe', () => {
  it('delivers a snapshot first, then live events', async () => {
    const session = server.addSession('sess_1');
    server.log('sess_1', status('running'));
    server.log('sess_1', status('paused'));
    const client = clientOf(server);
    await client.connect();
    const updates: SessionUpdate[] = [];
    client.subscribe('sess_1', (update) => updates.push(update));
    await vi.waitFor(() => expect(updates).toHaveLength(1));
    expect(updates[0]).toMatchObject({ type: 'session.snapshot', seq: 2, session: { sessionId: 'sess_1', status: 'paused' } });
    server.emit('sess_1', status('running'));
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@2', 'session.status@3']));
    expect(session.events).toHaveLength(3);
  });

  it('with afterSeq, delivers the events after it and then live ones', async () => {
    server.addSession('sess_1');
    for (let i = 0; i < 5; i++) server.log('sess_1', status(i % 2 ? 'paused' : 'running'));
    const client = clientOf(server);
    const updates: SessionUpdate[] = [];
    client.subscribe('sess_1', (update) => updates.push(update), { afterSeq: 3 });
    await client.connect();
    server.emit('sess_1', status('running'));
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['session.status@4', 'session.status@5', 'session.status@6']));
    expect(server.requests('session.subscribe')).toEqual([{ type: 'session.subscribe', sessionId: 'sess_1', afterSeq: 3, id: expect.any(String) }]);
  });

  it('reconnects after the server drops the socket mid-stream and resumes: every event exactly once, in order', async () => {
    server.addSession('sess_1');
    const bodies = runBodies();
    const client = clientOf(server);
    await client.connect();
    const updates: SessionUpdate[] = [];
    client.subscribe('sess_1', (update) => updates.push(update));
    await vi.waitFor(() => expect(updates).toHaveLength(1));
    let seqAtDrop: number | undefined;
    client.onStateChange((state) => {
      if (state === 'reconnecting') seqAtDrop = eventSeqs(updates).at(-1) ?? 0;
    });

    // A burst, cut in its middle by a crash: the client may or may not have read its tail.
    const cut = Math.floor(bodies.length / 3);
    for (const body of bodies.slice(0, cut)) server.emit('sess_1', body);
    server.dropAll();
    // Events that happen while the client is away are only logged.
    const away = Math.floor((2 * bodies.length) / 3);
    for (const body of bodies.slice(cut, away)) server.log('sess_1', body);
    await vi.waitFor(() => expect(server.received.some(({ connection, frame }) => connection === 1 && frame.type === 'session.subscribe')).toBe(true));
    for (const body of bodies.slice(away)) server.emit('sess_1', body);

    await vi.waitFor(() => expect(eventSeqs(updates).at(-1)).toBe(bodies.length));
    expect(updates[0]).toMatchObject({ type: 'session.snapshot', seq: 0 });
    expect(eventSeqs(updates)).toEqual(range(1, bodies.length));
    const resubscribe = server.received.find(({ connection, frame }) => connection === 1 && frame.type === 'session.subscribe');
    expect(resubscribe?.frame).toMatchObject({ sessionId: 'sess_1', afterSeq: seqAtDrop });
  });

  it('survives several drops in a row', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    const updates: SessionUpdate[] = [];
    client.subscribe('sess_1', (update) => updates.push(update));
    await client.connect();
    const subscribed = () => vi.waitFor(() => expect(server.openConnections()[0]?.subscriptions.has('sess_1')).toBe(true));
    for (let round = 0; round < 4; round++) {
      await subscribed();
      for (let i = 0; i < 5; i++) server.emit('sess_1', status(i % 2 ? 'paused' : 'running'));
      server.dropAll();
      server.log('sess_1', status('running'));
    }
    await subscribed();
    server.emit('sess_1', status('paused'));
    await vi.waitFor(() => expect(eventSeqs(updates)).toEqual(range(1, 25)));
  });

  it('drops a duplicate of an event already delivered', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    await client.connect();
    const updates: SessionUpdate[] = [];
    client.subscribe('sess_1', (update) => updates.push(update));
    await vi.waitFor(() => expect(updates).toHaveLength(1));
    const first = server.emit('sess_1', status('paused'));
    server.emit('sess_1', status('running'));
    server.send(server.connections[0]!, first);
    server.emit('sess_1', status('paused'));
    await vi.waitFor(() => expect(eventSeqs(updates)).toEqual([1, 2, 3]));
    server.emit('sess_1', status('running'));
    await vi.waitFor(() => expect(eventSeqs(updates)).toEqual([1, 2, 3, 4]));
  });

  it('re-subscribes with afterSeq when a gap appears, and fills it', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    await client.connect();
    const updates: SessionUpdate[] = [];
    client.subscribe('sess_1', (update) => updates.push(update));
    await vi.waitFor(() => expect(updates).toHaveLength(1));
    server.emit('sess_1', status('paused'));
    server.emit('sess_1', status('running'));
    server.log('sess_1', status('paused')); // seq 3 is lost on the way
    server.emit('sess_1', status('running'));
    server.emit('sess_1', status('paused'));
    await vi.waitFor(() => expect(eventSeqs(updates)).toEqual([1, 2, 3, 4, 5]));
    expect(server.requests('session.subscribe').map((frame) => frame.afterSeq)).toEqual([undefined, 2]);
    server.emit('sess_1', status('running'));
    await vi.waitFor(() => expect(eventSeqs(updates)).toEqual([1, 2, 3, 4, 5, 6]));
  });

  it('delivers a snapshot when the server no longer keeps the missed events', async () => {
    const session = server.addSession('sess_1');
    const client = clientOf(server);
    const updates: SessionUpdate[] = [];
    client.subscribe('sess_1', (update) => updates.push(update));
    await client.connect();
    await vi.waitFor(() => expect(updates).toHaveLength(1));
    server.emit('sess_1', status('paused'));
    await vi.waitFor(() => expect(eventSeqs(updates)).toEqual([1]));
    session.trimmed = true;
    server.dropAll();
    server.log('sess_1', status('running'));
    server.log('sess_1', status('paused'));
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@0', 'session.status@1', 'snapshot@3']));
    server.emit('sess_1', status('running'));
    await vi.waitFor(() => expect(describeUpdates(updates).at(-1)).toBe('session.status@4'));
  });

  it('stops delivery and sends session.unsubscribe when the last listener leaves, and does not re-subscribe after a drop', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    await client.connect();
    const updates: SessionUpdate[] = [];
    const stop = client.subscribe('sess_1', (update) => updates.push(update));
    await vi.waitFor(() => expect(updates).toHaveLength(1));
    stop();
    stop();
    await vi.waitFor(() => expect(server.requests('session.unsubscribe')).toHaveLength(1));
    server.emit('sess_1', status('paused'));
    server.dropAll();
    await vi.waitFor(() => expect(server.openConnections()).toHaveLength(1));
    server.emit('sess_1', status('running'));
    expect(server.requests('session.subscribe')).toHaveLength(1);
    expect(updates).toHaveLength(1);
  });

  it('gives each of two listeners of a session its own start and every event once', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    await client.connect();
    const first: SessionUpdate[] = [];
    const second: SessionUpdate[] = [];
    const stopFirst = client.subscribe('sess_1', (update) => first.push(update));
    await vi.waitFor(() => expect(first).toHaveLength(1));
    server.emit('sess_1', status('paused'));
    await vi.waitFor(() => expect(eventSeqs(first)).toEqual([1]));
    client.subscribe('sess_1', (update) => second.push(update));
    await vi.waitFor(() => expect(second).toHaveLength(1));
    server.emit('sess_1', status('running'));
    await vi.waitFor(() => expect(describeUpdates(second)).toEqual(['snapshot@1', 'session.status@2']));
    expect(describeUpdates(first)).toEqual(['snapshot@0', 'session.status@1', 'session.status@2']);
    stopFirst();
    server.emit('sess_1', status('paused'));
    await vi.waitFor(() => expect(eventSeqs(second)).toEqual([2, 3]));
    expect(server.requests('session.unsubscribe')).toHaveLength(0);
  });

  it('reports SESSION_NOT_FOUND through onError and stops following the session', async () => {
    const client = clientOf(server);
    await client.connect();
    const errors: InterthoughtError[] = [];
    client.subscribe('sess_missing', () => undefined, { onError: (error) => errors.push(error) });
    await vi.waitFor(() => expect(errors.map((error) => error.code)).toEqual(['SESSION_NOT_FOUND']));
    server.dropAll();
    await vi.waitFor(() => expect(client.hello?.connectionId).toBe('conn_1'));
    expect(server.requests('session.subscribe')).toHaveLength(1);
  });

  it('tells of a passing refusal (RATE_LIMITED) and asks again', async () => {
    server.addSession('sess_1');
    let refused = 0;
    server.handler = (message, connection) => {
      if (message.type !== 'session.subscribe' || refused > 0) return false;
      refused++;
      server.send(connection, { type: 'error', requestId: message.id, code: 'RATE_LIMITED', message: 'Slow down.' });
      return true;
    };
    const client = clientOf(server);
    await client.connect();
    const errors: string[] = [];
    const updates: SessionUpdate[] = [];
    client.subscribe('sess_1', (update) => updates.push(update), { onError: (error) => errors.push(error.code) });
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@0']));
    expect(errors).toEqual(['RATE_LIMITED']);
    expect(server.requests('session.subscribe')).toHaveLength(2);
  });

  it('delivers session.deleted as the last update, then stops following without unsubscribing or re-subscribing', async () => {
    server.addSession('sess_1');
    server.log('sess_1', status('running'));
    const watcher = clientOf(server);
    await watcher.connect();
    const updates: SessionUpdate[] = [];
    const stop = watcher.subscribe('sess_1', (update) => updates.push(update));
    await vi.waitFor(() => expect(updates).toHaveLength(1));
    const deleter = clientOf(server);
    await deleter.connect();
    const answer = await deleter.request({ type: 'session.delete', sessionId: 'sess_1' });
    expect(answer).toMatchObject({ type: 'session.deleted', sessionId: 'sess_1', seq: 2, requestId: expect.any(String) });
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@1', 'session.deleted@2']));
    expect(updates[1]).not.toHaveProperty('requestId');
    stop();
    server.dropAll();
    await vi.waitFor(() => expect(watcher.hello?.connectionId).not.toBe('conn_0'));
    await vi.waitFor(() => expect(server.openConnections()).toHaveLength(2));
    expect(server.requests('session.subscribe')).toHaveLength(1);
    expect(server.requests('session.unsubscribe')).toHaveLength(0);
  });

  it('gives session.deleted to a listener that fell behind, without asking for the events it missed', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    await client.connect();
    const updates: SessionUpdate[] = [];
    client.subscribe('sess_1', (update) => updates.push(update));
    await vi.waitFor(() => expect(updates).toHaveLength(1));
    server.log('sess_1', status('paused'));
    await client.request({ type: 'session.delete', sessionId: 'sess_1' });
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@0', 'session.deleted@2']));
    expect(server.requests('session.subscribe')).toHaveLength(1);
  });

  it('starts over from a snapshot when the server refuses its cursor (BAD_CURSOR)', async () => {
    server.addSession('sess_1');
    server.log('sess_1', status('paused'));
    const client = clientOf(server);
    await client.connect();
    const updates: SessionUpdate[] = [];
    client.subscribe('sess_1', (update) => updates.push(update), { afterSeq: 40 });
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@1']));
    expect(server.requests('session.subscribe').map((frame) => frame.afterSeq)).toEqual([40, undefined]);
  });
});

describe('createSession', () => {
  it('follows the created session at once: a later subscriber gets its start and every event since', async () => {
    server.eventsOnCreate = [status('running'), { type: 'step.started', step: { stepId: 'st_1', parentId: null, index: 0, kind: 'thought', status: 'streaming', content: '', revision: 0 } }];
    const client = clientOf(server);
    const frames: string[] = [];
    client.onMessage((frame) => frames.push(frame.type));
    await client.connect();
    const created = await client.createSession('Plan a trip', { agent: 'demo', options: { tokenDelayMs: 0 } });
    expect(server.requests('session.create')).toEqual([
      { type: 'session.create', task: 'Plan a trip', agent: 'demo', options: { tokenDelayMs: 0 }, id: expect.any(String) },
    ]);
    const sessionId = created.session.sessionId;
    server.emit(sessionId, { type: 'step.delta', stepId: 'st_1', text: 'Hello' });
    await vi.waitFor(() => expect(frames).toContain('step.delta'));
    const updates: SessionUpdate[] = [];
    client.subscribe(sessionId, (update) => updates.push(update));
    expect(describeUpdates(updates)).toEqual(['snapshot@0', 'session.status@1', 'step.started@2', 'step.delta@3']);
    expect(updates[0]).toMatchObject({ session: { sessionId, task: 'Plan a trip' }, steps: [], chain: [] });
    server.emit(sessionId, { type: 'step.delta', stepId: 'st_1', text: ' world' });
    await vi.waitFor(() => expect(eventSeqs(updates)).toEqual([1, 2, 3, 4]));
    expect(server.requests('session.subscribe')).toHaveLength(0);
  });

  it('keeps following a created session across a reconnect', async () => {
    const client = clientOf(server);
    await client.connect();
    const { session } = await client.createSession('Plan a trip');
    server.emit(session.sessionId, status('running'));
    server.dropAll();
    server.log(session.sessionId, status('paused'));
    await vi.waitFor(() => expect(server.requests('session.subscribe')).toEqual([expect.objectContaining({ sessionId: session.sessionId, afterSeq: 1 })]));
    const updates: SessionUpdate[] = [];
    client.subscribe(session.sessionId, (update) => updates.push(update));
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@0', 'session.status@1', 'session.status@2']));
  });

  it('rejects with the server error when creation is refused', async () => {
    server.handler = (message, connection) => {
      server.send(connection, { type: 'error', requestId: message.id, code: 'AGENT_NOT_FOUND', message: 'No agent "gpt-9". Known agents: demo.' });
      return true;
    };
    const client = clientOf(server);
    await client.connect();
    await expect(client.createSession('x', { agent: 'gpt-9' })).rejects.toMatchObject({ code: 'AGENT_NOT_FOUND' });
  });
});

describe('forkSession, sendMessage and decisions', () => {
  it('follows a fork at once, as after createSession', async () => {
    const client = clientOf(server);
    await client.connect();
    const source = server.addSession('sess_src');
    const created = await client.forkSession('sess_src', 'st_1');
    expect(server.requests('session.fork')).toEqual([{ type: 'session.fork', sessionId: 'sess_src', stepId: 'st_1', id: expect.any(String) }]);
    expect(created.session).toMatchObject({ status: 'idle', forkedFrom: { sessionId: source.info.sessionId, stepId: 'st_1' } });
    const updates: SessionUpdate[] = [];
    client.subscribe(created.session.sessionId, (update) => updates.push(update));
    expect(describeUpdates(updates)).toEqual(['snapshot@0', 'session.status@1']);
    expect(server.requests('session.subscribe')).toHaveLength(0);
  });

  it('sends a message with its mode, and decisions, resolving with their answers or rejecting with the error', async () => {
    const client = clientOf(server);
    await client.connect();
    server.addSession('sess_m');
    await expect(client.sendMessage('sess_m', 'Add 10 to that.', 'queue')).resolves.toMatchObject({ type: 'message.accepted', sessionId: 'sess_m', queued: false });
    expect(server.requests('session.message')).toEqual([{ type: 'session.message', sessionId: 'sess_m', text: 'Add 10 to that.', mode: 'queue', id: expect.any(String) }]);
    await expect(client.approveToolCall('sess_m', 'st_9')).rejects.toMatchObject({ code: 'APPROVAL_NOT_PENDING' });
    await expect(client.rejectToolCall('sess_m', 'st_9', 'no')).rejects.toMatchObject({ code: 'APPROVAL_NOT_PENDING' });
    expect(server.requests('tool.reject')).toEqual([{ type: 'tool.reject', sessionId: 'sess_m', stepId: 'st_9', reason: 'no', id: expect.any(String) }]);
  });
});
