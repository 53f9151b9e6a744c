import { createSessionState } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { LiveSession } from '../../src/core/sessions/live-session.js';
import { SessionTable } from '../../src/core/sessions/session-table.js';
import type { Peer } from '../../src/core/fanout/peer.js';

function finished(id: string, quotaKey?: string, subscribers: ReadonlyMap<Peer, number> = new Map()): LiveSession {
  const state = createSessionState({ sessionId: id, task: 't', agent: 'a', status: 'completed', revision: 0, createdAt: '2026-12-01T00:00:00.000Z' });
  const session = new LiveSession(state, {}, () => undefined, () => new Date(), () => subscribers);
  session.countAgainst(quotaKey);
  return session;
}

describe('SessionTable', () => {
  it('keeps the most recently idle sessions up to its capacity and drops the oldest', () => {
    const table = new SessionTable(2);
    const [a, b, c] = ['a', 'b', 'c'].map((id) => table.add(finished(id)));
    for (const session of [a!, b!, c!]) table.noteIfIdle(session);
    expect([table.has('a'), table.has('b'), table.has('c')]).toEqual([false, true, true]);
  });

  it('spares the session a caller is about to use, and never drops one in use', () => {
    const table = new SessionTable(1);
    const a = table.add(finished('a'));
    table.noteIfIdle(a);
    const b = table.add(finished('b'));
    table.noteIfIdle(b, { keep: true });
    expect(table.has('b')).toBe(true);
    const watched = table.add(finished('w', undefined, new Map([[{ id: 'peer', send: () => undefined, sendLive: () => undefined }, 0]])));
    table.noteIfIdle(watched);
    table.noteIfIdle(table.add(finished('x')));
    expect(table.has('w')).toBe(true);
  });

  it('counts active sessions, of everyone and of one quota', () => {
    const table = new SessionTable(10);
    table.add(finished('done', 'o1'));
    const running = table.add(finished('r1', 'o1'));
    running.state.session.status = 'running';
    const paused = table.add(finished('p2', 'o2'));
    paused.state.session.status = 'paused';
    expect([table.activeCount(), table.activeCount('o1'), table.activeCount('o2'), table.activeCount('o3')]).toEqual([2, 1, 1, 0]);
  });
});
