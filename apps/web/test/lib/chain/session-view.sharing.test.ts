import { describe, expect, it } from 'vitest';
import { SessionView } from '$lib/chain/session-view.svelte.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';

describe('SessionView share links', () => {
  it('follows the session’s links as they are made and revoked, without touching the chain', () => {
    const log = new EventLog();
    log.step('thought', 'Multiply.');
    const frames = new ManualFrames();
    const view = new SessionView(log.sessionId, { schedule: frames.schedule });
    view.loadSnapshot(log.emptySnapshot());
    const deliver = (from: number) => {
      for (const event of log.since(from)) view.enqueue(event);
      frames.run();
    };
    deliver(0);
    const rows = view.layout.rows;

    let seen = log.events.length;
    const viewer = log.share('viewer', { byName: 'Ada' });
    const editor = log.share('editor', { expiresAt: '2030-01-01T00:00:00.000Z' });
    deliver(seen);
    expect(view.shares.map((share) => [share.shareId, share.role])).toEqual([
      [viewer.shareId, 'viewer'],
      [editor.shareId, 'editor'],
    ]);
    expect(view.layout.rows).toBe(rows);

    seen = log.events.length;
    log.unshare(viewer.shareId);
    deliver(seen);
    expect(view.shares.map((share) => share.shareId)).toEqual([editor.shareId]);
  });

  it('takes the links a snapshot carries', () => {
    const log = new EventLog();
    const view = new SessionView(log.sessionId, { schedule: new ManualFrames().schedule });
    const share = { shareId: 'sh1', role: 'viewer' as const, createdAt: '2025-01-01T10:00:00.000Z', by: 'u-ada' };
    view.loadSnapshot({ ...log.emptySnapshot(), shares: [share] });
    expect(view.shares).toEqual([share]);
  });
});
