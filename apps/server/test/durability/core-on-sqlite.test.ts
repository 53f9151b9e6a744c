import type { SessionEvent, SessionSnapshotData } from '@interthought/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentRegistry } from '../../src/agents/agent-registry.js';
import { createDemoAgent } from '../../src/agents/demo/index.js';
import { SessionManager } from '../../src/core/session-manager.js';
import type { Peer } from '../../src/core/session-service.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/core/sqlite-event-store.js';
import { createDefaultTools } from '../../src/tools/index.js';
import { tempFolder } from './support/durable-server.js';
import { JournalingStore, eventKey } from './support/journaling-store.js';
import { expectCompletedLog, range } from './support/log-checks.js';

let folder: ReturnType<typeof tempFolder>;
const open: Array<{ manager: SessionManager; sqlite: SqliteEventStore }> = [];

beforeEach(() => {
  folder = tempFolder();
});

afterEach(async () => {
  for (const { manager, sqlite } of open.splice(0)) {
    await manager.shutdown();
    sqlite.close();
  }
  folder.cleanup();
});

/** A process's worth of core: the real SessionManager, demo agent and tools on the SQLite file. */
function startCore(defaultTokenDelayMs = 0) {
  const sqlite = openSqliteEventStore(folder.file('sessions.db'));
  const store = new JournalingStore(sqlite);
  const manager = new SessionManager({
    store,
    agents: new AgentRegistry('demo').register(createDemoAgent()),
    tools: createDefaultTools(),
    defaultTokenDelayMs,
    reportError: (context, error) => {
      throw new Error(`the core reported: ${context}: ${String(error)}`);
    },
  });
  const entry = { manager, sqlite };
  open.push(entry);
  return {
    manager,
    sqlite,
    store,
    async stop() {
      await manager.shutdown();
      sqlite.close();
      open.splice(open.indexOf(entry), 1);
    },
  };
}

/**
 * Wait until the store's summary says the session finished: summaries are written after their
 * events are committed, in the same flush that sends them, so by then every event went out.
 */
function untilFinished(sqlite: SqliteEventStore, sessionId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const check = () => {
      const status = sqlite.getSession(sessionId)?.info.status;
      if (status === 'completed' || status === 'failed' || status === 'cancelled') return resolve();
      if (Date.now() - started > 15_000) return reject(new Error(`session ${sessionId} is still ${status}`));
      setTimeout(check, 5);
    };
    check();
  });
}

describe('the session core on a real SQLite file', () => {
  it('sends each event only once the transaction holding it has committed, as the very text it stored', async () => {
    const { manager, sqlite, store } = startCore();
    const problems: string[] = [];
    const received = new Map<string, SessionEvent[]>();
    // Checked at the moment of sending, synchronously: the store must already hold this exact text.
    const checkingPeer: Peer = {
      id: 'checking-peer',
      send(frame) {
        const event = JSON.parse(frame) as SessionEvent;
        // `session.subscribed` carries no seq of its own: only events are checked.
        if (typeof event.seq !== 'number') return;
        if (!store.written.has(eventKey(event))) problems.push(`${eventKey(event)} sent before its batch committed`);
        if (sqlite.readEventFrames(event.sessionId, event.seq - 1, 1)[0] !== frame) problems.push(`${eventKey(event)} differs from the stored text`);
        received.set(event.sessionId, [...(received.get(event.sessionId) ?? []), event]);
      },
    };
    const ids = range(1, 20).map((i) => manager.create({ task: `What is ${i + 20} * ${i + 3}?` }).sessionId);
    for (const sessionId of ids) manager.subscribe(sessionId, { peer: checkingPeer }, 0);
    await Promise.all(ids.map((sessionId) => untilFinished(sqlite, sessionId)));

    expect(problems).toEqual([]);
    for (const sessionId of ids) expect(expectCompletedLog(sessionId, received.get(sessionId) ?? []).seq).toBe(sqlite.getSession(sessionId)?.lastSeq);
    // Each event was committed exactly once.
    expect(store.batches.flat()).toHaveLength(store.written.size);
  });

  it('after a restart lists every session and marks the in-flight one interrupted without reading a log, then loads a log only when it is touched', async () => {
    const first = startCore();
    const finished = range(1, 5).map((i) => first.manager.create({ task: `What is ${i} + ${i * 7}?` }).sessionId);
    await Promise.all(finished.map((sessionId) => untilFinished(first.sqlite, sessionId)));
    const inFlight = first.manager.create({ task: 'What is 123 * 456?', options: { tokenDelayMs: 1_000 } }).sessionId;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const snapshots = new Map<string, SessionSnapshotData | undefined>(finished.map((id) => [id, first.manager.snapshot(id)]));
    // What a crash leaves: everything committed, the in-flight session still recorded as running.
    await first.stop();

    const second = startCore();
    expect(second.manager.recoveredSessionIds).toEqual([inFlight]);
    expect(second.store.logReads).toBe(0);
    expect(second.sqlite.readEvents(inFlight, 0).at(-1)).toMatchObject({ type: 'session.status', status: 'interrupted' });
    const page = second.manager.list({ limit: 20 });
    expect(page.sessions.map((info) => info.sessionId).sort()).toEqual([...finished, inFlight].sort());
    expect(page.sessions.find((info) => info.sessionId === inFlight)?.status).toBe('interrupted');
    expect(second.store.logReads).toBe(0);

    const [one] = finished;
    expect(second.manager.snapshot(one!)).toEqual(snapshots.get(one!));
    expect(second.store.logReads).toBe(1);
    expect(second.manager.activeSessionCount).toBe(0);
  });
});
