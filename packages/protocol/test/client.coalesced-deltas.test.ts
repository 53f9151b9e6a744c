import { describe, expect, it, vi } from 'vitest';
import { applyEvents, createSessionState, type SessionEvent, type SessionSnapshot, type SessionUpdate } from '../src/index.js';
import { clientOf, describeUpdates, useScriptedServer } from './support/clients.js';
import type { EventBody, ScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
useScriptedServer((started) => (server = started));

const SID = 'sess_1';
const started: EventBody = {
  type: 'step.started',
  step: { stepId: 'st_1', parentId: null, index: 0, kind: 'thought', status: 'streaming', content: '', revision: 0 },
};
const delta = (text: string): EventBody => ({ type: 'step.delta', stepId: 'st_1', text });

/** Log deltas without sending them, then send them to every connection as ONE coalesced frame, as a server does for a slow reader. */
function emitCoalesced(texts: string[]): SessionEvent {
  const events = texts.map((text) => server.log(SID, delta(text)));
  const first = events[0]!;
  const last = events.at(-1)!;
  const frame = { ...last, text: texts.join(''), fromSeq: first.seq };
  for (const connection of server.openConnections()) server.send(connection, frame);
  return frame as SessionEvent;
}

/** A connected client following the session from its start; returns what it delivers. */
async function follow(): Promise<SessionUpdate[]> {
  server.addSession(SID);
  server.log(SID, started);
  const client = clientOf(server);
  await client.connect();
  const updates: SessionUpdate[] = [];
  client.subscribe(SID, (update) => updates.push(update));
  await vi.waitFor(() => expect(updates).toHaveLength(1));
  return updates;
}

/** The content of the step once every update is folded (throws if they do not fit one another). */
function contentOf(updates: SessionUpdate[]): string {
  const [snapshot, ...events] = updates;
  const state = applyEvents(createSessionState(snapshot as SessionSnapshot), events as SessionEvent[]);
  return state.steps.get('st_1')?.content ?? '';
}

describe('subscribe with coalesced deltas', () => {
  it('delivers a coalesced delta once and moves past every seq it stands for', async () => {
    const updates = await follow();
    server.emit(SID, delta('a'));
    emitCoalesced(['b', 'c', 'd']);
    server.emit(SID, delta('e'));
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@1', 'step.delta@2', 'step.delta@5', 'step.delta@6']));
    expect(updates[2]).toMatchObject({ fromSeq: 3, seq: 5, text: 'bcd' });
    expect(contentOf(updates)).toBe('abcde');
    expect(server.requests('session.subscribe')).toHaveLength(1);
  });

  it('drops a coalesced delta whose seqs it already delivered', async () => {
    const updates = await follow();
    const events = ['a', 'b', 'c'].map((text) => server.emit(SID, delta(text)));
    await vi.waitFor(() => expect(updates).toHaveLength(4));
    const again = { ...events[2]!, text: 'bc', fromSeq: 3 };
    for (const connection of server.openConnections()) server.send(connection, again);
    server.emit(SID, delta('d'));
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@1', 'step.delta@2', 'step.delta@3', 'step.delta@4', 'step.delta@5']));
    expect(contentOf(updates)).toBe('abcd');
  });

  it('re-subscribes after its cursor when a coalesced delta only partly overlaps what it has, and gets those events one by one', async () => {
    const updates = await follow();
    server.emit(SID, delta('a'));
    server.emit(SID, delta('b'));
    await vi.waitFor(() => expect(updates).toHaveLength(3));
    // Seqs 3…4 in one frame while the listener is at 3: its text cannot be split, so it is not delivered.
    const logged = server.log(SID, delta('c'));
    const overlapping = { ...logged, text: 'bc', fromSeq: 3 };
    for (const connection of server.openConnections()) server.send(connection, overlapping);
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@1', 'step.delta@2', 'step.delta@3', 'step.delta@4']));
    expect(server.requests('session.subscribe').at(-1)).toMatchObject({ sessionId: SID, afterSeq: 3 });
    expect(updates.at(-1)).not.toHaveProperty('fromSeq');
    expect(contentOf(updates)).toBe('abc');
  });

  it('reconnects after a 4008 "slow consumer" close and resumes after the last seq a coalesced delta covered', async () => {
    const updates = await follow();
    emitCoalesced(['a', 'b']);
    await vi.waitFor(() => expect(updates).toHaveLength(2));
    server.log(SID, delta('c'));
    for (const connection of server.openConnections()) connection.socket.close(4008, 'slow consumer');
    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@1', 'step.delta@3', 'step.delta@4']));
    expect(server.connections).toHaveLength(2);
    expect(server.requests('session.subscribe').at(-1)).toMatchObject({ sessionId: SID, afterSeq: 3 });
    expect(contentOf(updates)).toBe('abc');
  });
});
