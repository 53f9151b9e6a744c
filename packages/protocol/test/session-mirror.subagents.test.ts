import { describe, expect, it, vi } from 'vitest';
import { SessionMirror, applyEvents, chainOfScope, createSessionState, runningSubagents, toSnapshot, type SessionState } from '../src/index.js';
import { clientOf, useScriptedServer } from './support/clients.js';
import { buildParallelSession, interleave, seededOrder } from './support/parallel-scopes.js';
import type { EventBody, ScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
useScriptedServer((started) => (server = started));

/** A batch of two sub-agents, one with a nested one and a correction, interleaved: the events a server would log. */
const BODIES: EventBody[] = interleave(
  buildParallelSession([
    [
      { kind: 'start', stepKind: 'thought' },
      { kind: 'delta', text: 'seventeen' },
      { kind: 'nest', actions: [{ kind: 'start', stepKind: 'thought' }, { kind: 'usage', inputTokens: 5, outputTokens: 1, quarters: 2 }] },
      { kind: 'correct', position: 0, content: 'better' },
      { kind: 'start', stepKind: 'observation' },
    ],
    [
      { kind: 'start', stepKind: 'action' },
      { kind: 'approval' },
      { kind: 'usage', inputTokens: 3, outputTokens: 2, quarters: undefined },
    ],
  ]),
  seededOrder(9),
).map(({ sessionId, seq, at, ...body }) => {
  void sessionId, seq, at;
  return body as EventBody;
});

function truth(sessionId: string): SessionState {
  const session = server.sessions.get(sessionId)!;
  return applyEvents(createSessionState(session.info), session.events);
}

describe('SessionMirror with sub-agents', () => {
  it('builds the scopes from a snapshot that carries subagents, then from the scoped events', async () => {
    server.addSession('sess_1');
    const half = Math.floor(BODIES.length / 2);
    for (const body of BODIES.slice(0, half)) server.log('sess_1', body);
    const client = clientOf(server);
    await client.connect();
    const mirror = new SessionMirror(client, 'sess_1');
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(half));
    expect(mirror.state!.subagents.size).toBeGreaterThan(0);
    for (const body of BODIES.slice(half)) server.emit('sess_1', body);
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(BODIES.length));
    expect(mirror.state).toEqual(truth('sess_1'));
    expect(mirror.state!.subagents.size).toBe(3);
    expect(mirror.resyncs).toBe(0);
    client.close();
  });

  it('resumes from a cached state with sub-agents, asking only for the events after it', async () => {
    server.addSession('sess_1');
    for (const body of BODIES) server.log('sess_1', body);
    const cut = BODIES.length - 5;
    const cached = applyEvents(createSessionState(server.sessions.get('sess_1')!.info), server.sessions.get('sess_1')!.events.slice(0, cut));
    const client = clientOf(server);
    await client.connect();
    const mirror = new SessionMirror(client, 'sess_1', { from: JSON.parse(JSON.stringify(toSnapshot(cached))) });
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(BODIES.length));
    expect(server.requests('session.subscribe')[0]).toMatchObject({ afterSeq: cut });
    expect(mirror.state).toEqual(truth('sess_1'));
    client.close();
  });

  it('follows a sub-agent cancelled by this client: the answer is also the event it folds', async () => {
    server.addSession('sess_1');
    // Up to the first sub-agent's start: it is running.
    const opened = BODIES.findIndex((body) => body.type === 'subagent.started');
    for (const body of BODIES.slice(0, opened + 1)) server.log('sess_1', body);
    const scope = (BODIES[opened] as unknown as { scope: string }).scope;
    const client = clientOf(server);
    await client.connect();
    const mirror = new SessionMirror(client, 'sess_1');
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(opened + 1));
    expect(runningSubagents(mirror.state!).map((subagent) => subagent.scope)).toEqual([scope]);
    const answer = await client.cancelSubagent('sess_1', scope);
    expect(answer.status).toBe('cancelled');
    await vi.waitFor(() => expect(mirror.state?.subagents.get(scope)?.status).toBe('cancelled'));
    expect(runningSubagents(mirror.state!)).toEqual([]);
    expect(chainOfScope(mirror.state!, scope)).toEqual([]);
    client.close();
  });
});
