import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { createHarness, turns, untilStatus } from '../core/support/harness.js';
import { Checkpoint, TestAgent, heldBehaviour } from '../core/support/test-agents.js';
import { makeTempDir } from './store-fixtures.js';

// The session core (SessionManager) on the SQLite store: what a server restart does to a session.
// Each restart is a new harness on a reopened store (the harness's own restart keeps its store).

let temp: ReturnType<typeof makeTempDir>;
const opened: SqliteEventStore[] = [];

function open(options?: { retainEventsPerSession?: number }): SqliteEventStore {
  const store = openSqliteEventStore(temp.file(), options);
  opened.push(store);
  return store;
}

beforeEach(() => {
  temp = makeTempDir();
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  temp.cleanup();
});

describe('SqliteEventStore under the session core', () => {
  it('serves the same snapshot and replay after the core restarts on the reopened file', async () => {
    const first = createHarness({ store: open() });
    const { sessionId } = await first.manager.create({ task: 'add two and three' });
    await untilStatus(first.manager, sessionId, 'completed');
    const before = await first.manager.snapshot(sessionId);
    await first.manager.shutdown();
    await opened[0]?.close();

    const reopened = open();
    const second = createHarness({ store: reopened });
    expect(await second.manager.snapshot(sessionId)).toEqual(before);
    expect((await second.manager.list({ limit: 10 })).sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    expect((await reopened.readEvents(sessionId, 0)).map((e) => e.seq)).toEqual(Array.from({ length: before?.seq ?? 0 }, (_, i) => i + 1));
    await second.manager.shutdown();
  });

  it('rebuilds a session from the retention snapshot and the kept events after a restart', async () => {
    const first = createHarness({ store: open({ retainEventsPerSession: 4 }) });
    const { sessionId } = await first.manager.create({ task: 'add two and three' });
    await untilStatus(first.manager, sessionId, 'completed');
    const before = await first.manager.snapshot(sessionId);
    await first.manager.shutdown();
    await opened[0]?.close();

    const reopened = open({ retainEventsPerSession: 4 });
    expect(await reopened.firstKeptSeq(sessionId)).toBeGreaterThan(1);
    const second = createHarness({ store: reopened });
    expect(await second.manager.snapshot(sessionId)).toEqual(before);
    await second.manager.shutdown();
  });

  it('marks a run cut off by a crash as interrupted when the next core starts', async () => {
    const checkpoint = new Checkpoint();
    const held = new TestAgent('held', heldBehaviour(checkpoint, []));
    const crashed = createHarness({ store: open(), agents: [held] });
    const { sessionId } = await crashed.manager.create({ task: 'think slowly', agent: 'held' });
    await turns(20);
    expect(checkpoint.reached).toBe(true);
    // The process dies here: no shutdown, the file is simply let go (the run stays held forever).
    await opened[0]?.close();

    const next = createHarness({ store: open(), agents: [held] });
    await next.manager.ready;
    expect(next.manager.recoveredSessionIds).toEqual([sessionId]);
    const snapshot = await next.manager.snapshot(sessionId);
    expect(snapshot?.session.status).toBe('interrupted');
    expect(snapshot?.steps[0]?.content).toBe('partial text ');
    await next.manager.shutdown();
  });
});
