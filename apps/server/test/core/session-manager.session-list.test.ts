import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, turns, untilStatus, type Harness } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.manager.shutdown();
  harness = undefined;
});

function setup(): Harness {
  harness = createHarness();
  return harness;
}

/** What a list watcher was told, as `type:sessionId:status`. */
function told(peer: RecordingPeer): string[] {
  return peer.messages.flatMap((message) => {
    if (message.type === 'sessions.changed') {
      const session = message.session as { sessionId: string; status: string; revision: number };
      return [`changed:${session.sessionId}:${session.status}@${session.revision}`];
    }
    if (message.type === 'sessions.removed') return [`removed:${String(message.sessionId)}`];
    return [];
  });
}

describe('SessionManager: following the list of sessions', () => {
  it('answers with the newest sessions first, at most `limit`', async () => {
    const h = setup();
    const ids: string[] = [];
    for (const task of ['first', 'second', 'third']) ids.push((await h.manager.create({ task })).sessionId);
    const watcher = new RecordingPeer('w');
    expect((await h.manager.watchList({ peer: watcher }, 2)).map((session) => session.sessionId)).toEqual([ids[2], ids[1]]);
    expect((await h.manager.watchList({ peer: watcher }, 10)).map((session) => session.task)).toEqual(['third', 'second', 'first']);
  });

  it('tells a watcher of every session created, every status and revision stored, and every deletion, in that order', async () => {
    const h = setup();
    const watcher = new RecordingPeer('w');
    expect(await h.manager.watchList({ peer: watcher }, 50)).toEqual([]);
    const { sessionId } = await h.manager.create({ task: 'x' });
    await untilStatus(h.manager, sessionId, 'completed');
    await h.manager.correct({ sessionId, stepId: (await h.manager.snapshot(sessionId))!.chain[0]!, content: 'Again.' });
    await untilStatus(h.manager, sessionId, 'completed');
    await h.manager.delete(sessionId);
    expect(told(watcher)[0]).toBe(`changed:${sessionId}:running@0`);
    expect(told(watcher)).toContain(`changed:${sessionId}:completed@0`);
    expect(told(watcher)).toContain(`changed:${sessionId}:running@1`);
    expect(told(watcher).slice(-2)).toEqual([`changed:${sessionId}:completed@1`, `removed:${sessionId}`]);
    // Each summary it is told of is the one stored at that moment.
    const completed = watcher.ofType('sessions.changed').at(-1)!.session;
    expect(completed).toMatchObject({ sessionId, status: 'completed', revision: 1 });
  });

  it('tells nothing more after unwatchList or detach, and tells every other watcher still', async () => {
    const h = setup();
    const [gone, closed, staying] = [new RecordingPeer('gone'), new RecordingPeer('closed'), new RecordingPeer('staying')];
    for (const peer of [gone, closed, staying]) await h.manager.watchList({ peer }, 50);
    h.manager.unwatchList(gone);
    h.manager.unwatchList(gone);
    h.manager.detach(closed);
    const { sessionId } = await h.manager.create({ task: 'x' });
    await untilStatus(h.manager, sessionId, 'completed');
    expect(told(gone)).toEqual([]);
    expect(told(closed)).toEqual([]);
    expect(told(staying)).toContain(`changed:${sessionId}:completed@0`);
  });

  it('keeps telling the others when one watcher throws from send', async () => {
    const errors: string[] = [];
    harness = createHarness({ reportError: (context) => errors.push(context) });
    const h = harness;
    // Its socket goes once it is watching: the list's changes (sent live) are what it throws on.
    const socketGone = (): never => {
      throw new Error('socket gone');
    };
    await h.manager.watchList({ peer: { id: 'broken', send: () => undefined, sendLive: socketGone } }, 50);
    const watcher = new RecordingPeer('w');
    await h.manager.watchList({ peer: watcher }, 50);
    const { sessionId } = await h.manager.create({ task: 'x' });
    await turns(3);
    expect(told(watcher)[0]).toBe(`changed:${sessionId}:running@0`);
    expect(errors.some((context) => context.includes('broken'))).toBe(true);
  });
});
