import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  createSessionState,
  ServerMessageSchema,
  toSnapshot,
  type SessionEvent,
  type ShareCreatedEvent,
} from '../src/index.js';

const SESSION = 's_1';

function created(seq: number, shareId: string, role: 'viewer' | 'editor' = 'viewer'): ShareCreatedEvent {
  return {
    type: 'share.created',
    sessionId: SESSION,
    seq,
    at: '2026-12-01T08:00:00.000Z',
    share: { shareId, role, createdAt: '2026-12-01T08:00:00.000Z', by: 'u-ada', byName: 'Ada' },
  };
}

describe('share events in the reducer', () => {
  it('keeps the links not revoked, oldest first, and snapshots carry them', () => {
    const state = createSessionState({ sessionId: SESSION, task: 't', agent: 'demo', status: 'completed', revision: 0, createdAt: '' });
    applyEvent(state, created(1, 'sh_a'));
    applyEvent(state, created(2, 'sh_b', 'editor'));
    applyEvent(state, { type: 'share.revoked', sessionId: SESSION, seq: 3, at: '2026-12-01T09:00:00.000Z', shareId: 'sh_a', by: 'u-ada' });
    expect(state.shares.map((share) => [share.shareId, share.role])).toEqual([['sh_b', 'editor']]);
    const snapshot = toSnapshot(state);
    expect(snapshot.shares).toEqual([{ shareId: 'sh_b', role: 'editor', createdAt: '2026-12-01T08:00:00.000Z', by: 'u-ada', byName: 'Ada' }]);
    // A state built from that snapshot has the same links, and a snapshot without links omits the field.
    expect(createSessionState(snapshot).shares).toEqual(snapshot.shares);
    applyEvent(state, { type: 'share.revoked', sessionId: SESSION, seq: 4, at: '2026-12-01T09:00:00.000Z', shareId: 'sh_b', by: 'u-ada' });
    expect('shares' in toSnapshot(state)).toBe(false);
  });

  it('reads the share frames and the attribution fields as server messages', () => {
    const frames: unknown[] = [
      created(1, 'sh_a'),
      { type: 'session.shared', requestId: 'r1', sessionId: SESSION, shareId: 'sh_a', role: 'viewer', token: 'x.y', url: 'http://h/sessions/s_1?share=x.y' },
      { type: 'session.unshared', sessionId: SESSION, shareId: 'sh_a' },
      { type: 'approval.resolved', sessionId: SESSION, seq: 2, at: 'now', stepId: 'st', decision: 'approved', by: 'u-ada', byName: 'Ada' },
    ];
    for (const frame of frames) {
      expect(ServerMessageSchema.safeParse(frame).success, JSON.stringify(frame)).toBe(true);
    }
    const state = createSessionState({ sessionId: SESSION, task: 't', agent: 'demo', status: 'waiting', revision: 0, createdAt: '' });
    const events: SessionEvent[] = [
      { type: 'step.started', sessionId: SESSION, seq: 1, at: 'a', step: { stepId: 'st', parentId: null, index: 0, kind: 'tool_call', status: 'streaming', content: '{}', revision: 0 } },
      { type: 'approval.requested', sessionId: SESSION, seq: 2, at: 'b', stepId: 'st', tool: 'calculator', input: {} },
      { type: 'approval.resolved', sessionId: SESSION, seq: 3, at: 'c', stepId: 'st', decision: 'rejected', by: 'u-ada', byName: 'Ada', reason: 'no' },
    ];
    for (const event of events) applyEvent(state, event);
    expect(state.steps.get('st')?.approval).toMatchObject({ state: 'rejected', by: 'u-ada', byName: 'Ada', reason: 'no' });
  });
});
