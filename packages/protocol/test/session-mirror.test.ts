import { describe, expect, it, vi } from 'vitest';
import {
  SessionMirror,
  applyEvents,
  chainSteps,
  createSessionState,
  toSnapshot,
  type InterthoughtError,
  type SessionState,
  type SessionUpdate,
} from '../src/index.js';
import { clientOf, useScriptedServer } from './support/clients.js';
import { buildSession, type SessionAction } from './support/legal-session.js';
import type { EventBody, ScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
useScriptedServer((started) => (server = started));

const ACTIONS: SessionAction[] = [
  { kind: 'status', status: 'running' },
  { kind: 'start', stepKind: 'thought' },
  { kind: 'delta', text: 'I need ' },
  { kind: 'delta', text: '6 × 7.' },
  { kind: 'start', stepKind: 'tool_call' },
  { kind: 'delta', text: '{"expression":"6*7"}' },
  { kind: 'start', stepKind: 'observation' },
  { kind: 'delta', text: '42' },
  { kind: 'complete' },
  { kind: 'correct', position: 1, content: '{"expression":"6*9"}', note: 'wrong factor' },
  { kind: 'start', stepKind: 'observation' },
  { kind: 'delta', text: '54' },
  { kind: 'start', stepKind: 'final_answer' },
  { kind: 'delta', text: 'The answer is 54.' },
  { kind: 'complete' },
  { kind: 'status', status: 'completed' },
];

const BODIES: EventBody[] = buildSession(ACTIONS).events.map(({ sessionId, seq, at, ...body }) => {
  void sessionId, seq, at;
  return body as EventBody;
});

/** The state the server's own log folds to. */
function truth(sessionId: string): SessionState {
  const session = server.sessions.get(sessionId)!;
  return applyEvents(createSessionState(session.info), session.events);
}

describe('SessionMirror', () => {
  it('builds the state from the snapshot and every event, corrections included', async () => {
    server.addSession('sess_1');
    for (const body of BODIES.slice(0, 5)) server.log('sess_1', body);
    const client = clientOf(server);
    await client.connect();
    const mirror = new SessionMirror(client, 'sess_1');
    const seen: SessionUpdate['type'][] = [];
    mirror.onChange((state, update) => {
      expect(state).toBe(mirror.state);
      seen.push(update.type);
    });
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(5));
    for (const body of BODIES.slice(5)) server.emit('sess_1', body);
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(BODIES.length));
    expect(mirror.state).toEqual(truth('sess_1'));
    expect(chainSteps(mirror.state!).map((step) => step.content)).toEqual(['I need 6 × 7.', '{"expression":"6*9"}', '54', 'The answer is 54.']);
    expect(mirror.state?.session.status).toBe('completed');
    expect(seen[0]).toBe('session.snapshot');
    expect(seen).toContain('steps.invalidated');
  });

  it('stays exact across a dropped connection', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    const mirror = new SessionMirror(client, 'sess_1');
    await client.connect();
    await vi.waitFor(() => expect(mirror.state).toBeDefined());
    const half = Math.floor(BODIES.length / 2);
    for (const body of BODIES.slice(0, half)) server.emit('sess_1', body);
    server.dropAll();
    for (const body of BODIES.slice(half, half + 3)) server.log('sess_1', body);
    await vi.waitFor(() => expect(server.openConnections()[0]?.subscriptions.has('sess_1')).toBe(true));
    for (const body of BODIES.slice(half + 3)) server.emit('sess_1', body);
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(BODIES.length));
    expect(mirror.state).toEqual(truth('sess_1'));
    expect(mirror.resyncs).toBe(0);
  });

  it('reloads a snapshot when an event does not fit its state, instead of showing a wrong tree', async () => {
    server.addSession('sess_1');
    for (const body of BODIES.slice(0, 4)) server.log('sess_1', body);
    const client = clientOf(server);
    await client.connect();
    const mirror = new SessionMirror(client, 'sess_1');
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(4));
    // A frame the reducer must refuse (a delta for a step it never saw), sent with the next seq.
    server.send(server.connections[0]!, { type: 'step.delta', sessionId: 'sess_1', seq: 5, at: 'now', stepId: 'st_ghost', text: '??' });
    await vi.waitFor(() => expect(mirror.resyncs).toBe(1));
    for (const body of BODIES.slice(4)) server.emit('sess_1', body);
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(BODIES.length));
    expect(mirror.state).toEqual(truth('sess_1'));
    expect([...mirror.state!.steps.keys()]).not.toContain('st_ghost');
  });

  it('mirrors a session this client created from its first event', async () => {
    server.eventsOnCreate = BODIES.slice(0, 3);
    const client = clientOf(server);
    await client.connect();
    const { session } = await client.createSession('Compute 6 × 7');
    const mirror = new SessionMirror(client, session.sessionId);
    for (const body of BODIES.slice(3)) server.emit(session.sessionId, body);
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(BODIES.length));
    expect(mirror.state).toEqual(truth(session.sessionId));
    expect(mirror.state?.session.task).toBe('Compute 6 × 7');
  });

  it('resumes from a state it is given, asking only for the events after it', async () => {
    server.addSession('sess_1');
    for (const body of BODIES) server.log('sess_1', body);
    const cached = server.sessions.get('sess_1')!;
    const partial = toSnapshot(applyEvents(createSessionState(cached.info), cached.events.slice(0, 7)));
    const client = clientOf(server);
    await client.connect();
    const mirror = new SessionMirror(client, 'sess_1', { from: partial });
    expect(mirror.state?.seq).toBe(7);
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(BODIES.length));
    expect(mirror.state).toEqual(truth('sess_1'));
    expect(server.requests('session.subscribe')).toEqual([expect.objectContaining({ sessionId: 'sess_1', afterSeq: 7 })]);
  });

  it('marks its state deleted when the session is deleted, keeping the tree it had', async () => {
    server.addSession('sess_1');
    for (const body of BODIES) server.log('sess_1', body);
    const client = clientOf(server);
    await client.connect();
    const mirror = new SessionMirror(client, 'sess_1');
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(BODIES.length));
    const before = truth('sess_1');
    const changes: string[] = [];
    mirror.onChange((_state, update) => changes.push(update.type));
    await client.request({ type: 'session.delete', sessionId: 'sess_1' });
    await vi.waitFor(() => expect(mirror.state?.deleted).toBe(true));
    expect(changes).toEqual(['session.deleted']);
    expect(toSnapshot(mirror.state!)).toEqual({ ...toSnapshot(before), seq: BODIES.length + 1 });
  });

  it('marks its state deleted even when it missed events before session.deleted, without asking for them', async () => {
    server.addSession('sess_1');
    for (const body of BODIES.slice(0, 5)) server.log('sess_1', body);
    const client = clientOf(server);
    await client.connect();
    const mirror = new SessionMirror(client, 'sess_1');
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(5));
    server.log('sess_1', BODIES[5]!);
    await client.request({ type: 'session.delete', sessionId: 'sess_1' });
    await vi.waitFor(() => expect(mirror.state?.deleted).toBe(true));
    expect(mirror.state?.seq).toBe(7);
    expect(mirror.resyncs).toBe(0);
    expect(server.requests('session.subscribe')).toHaveLength(1);
  });

  it('reports a missing session and stops after close()', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    await client.connect();
    const errors: InterthoughtError[] = [];
    const missing = new SessionMirror(client, 'sess_404', { onError: (error) => errors.push(error) });
    await vi.waitFor(() => expect(errors.map((error) => error.code)).toEqual(['SESSION_NOT_FOUND']));
    expect(missing.state).toBeUndefined();

    const mirror = new SessionMirror(client, 'sess_1');
    await vi.waitFor(() => expect(mirror.state).toBeDefined());
    mirror.close();
    await vi.waitFor(() => expect(server.requests('session.unsubscribe')).toHaveLength(1));
    const arrived: string[] = [];
    client.onMessage((frame) => arrived.push(frame.type));
    // Even an event pushed to this connection regardless is not applied any more.
    server.send(server.connections[0]!, server.log('sess_1', BODIES[0]!));
    await vi.waitFor(() => expect(arrived).toEqual([BODIES[0]!.type]));
    expect(mirror.state?.seq).toBe(0);
  });
});
