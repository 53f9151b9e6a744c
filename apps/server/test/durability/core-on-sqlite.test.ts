import type { SessionEvent, SessionSnapshotData } from '@interthought/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { createDemoAgent } from '../../src/agents/demo/index.js';
import { SessionManager } from '../../src/core/session-manager.js';
import type { Peer } from '../../src/core/fanout/peer.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { createDefaultTools } from '../../src/tools/index.js';
import { tempFolder } from './support/durable-server.js';
import { RecordingStore, eventKey } from '../support/recording-store.js';
import { expectCompletedLog, range } from './support/log-checks.js';

let folder: ReturnType<typeof tempFolder>;
const open: Array<{ manager: SessionManager; sqlite: SqliteEventStore }> = [];

beforeEach(() => {
  folder = tempFolder();
});

afterEach(async () => {
  for (const { manager, sqlite } of open.splice(0)) {
    await manager.shutdown();
    await sqlite.close();
  }
  folder.cleanup();
});

/** A process's worth of core: the real SessionManager, demo agent and tools on the SQLite file. */
function startCore(defaultTokenDelayMs = 0) {
  const sqlite = openSqliteEventStore(folder.file('sessions.db'));
  const store = new RecordingStore(sqlite);
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
      await sqlite.close();
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
    const check = async () => {
      const status = (await sqlite.getSession(sessionId))?.info.status;
      if (status === 'completed' || status === 'failed' || status === 'cancelled') return resolve();
      if (Date.now() - started > 15_000) return reject(new Error(`session ${sessionId} is still ${status}`));
      setTimeout(() => void check().catch(reject), 5);
    };
    check().catch(reject);
  });
}

describe('the session core on a real SQLite file', () => {
  it('sends each event only once the transaction holding it has committed, as the very text it stored', async () => {
    const { manager, sqlite, store } = startCore();
    const problems: string[] = [];
    const received = new Map<string, SessionEvent[]>();
    // What the file held when each event was sent. SqliteEventStore runs its query inside the call
    // (its promise is settled on return), so each read is taken at the moment of sending.
    const storedAtSend: Array<Promise<string | undefined>> = [];
    // Checked at the moment of sending, synchronously: the store must already hold this exact text.
    const checkingPeer: Peer = {
      id: 'checking-peer',
      send({ text }) {
        const event = JSON.parse(text) as SessionEvent;
        // `session.subscribed` carries no seq of its own: only events are checked.
        if (typeof event.seq !== 'number') return;
        const key = eventKey(event);
        if (!store.written.has(key)) problems.push(`${key} sent before its batch committed`);
        storedAtSend.push(
          sqlite.readEventFrames(event.sessionId, event.seq - 1, 1).then((stored) => {
            if (stored[0] !== text) problems.push(`${key} differs from the stored text`);
            return stored[0];
          }),
        );
        received.set(event.sessionId, [...(received.get(event.sessionId) ?? []), event]);
      },
      sendLive() {
        // Only list watchers get live frames without an event; this peer watches no list.
      },
    };
    const ids = await Promise.all(range(1, 20).map(async (i) => (await manager.create({ task: `What is ${i + 20} * ${i + 3}?` })).sessionId));
    for (const sessionId of ids) await manager.subscribe(sessionId, { peer: checkingPeer }, 0);
    await Promise.all(ids.map((sessionId) => untilFinished(sqlite, sessionId)));
    await Promise.all(storedAtSend);

    expect(problems).toEqual([]);
    for (const sessionId of ids) expect(expectCompletedLog(sessionId, received.get(sessionId) ?? []).seq).toBe((await sqlite.getSession(sessionId))?.lastSeq);
    // Each event was committed exactly once.
    expect(store.committedBatches.flat()).toHaveLength(store.written.size);
  });

  it('after a restart lists every session and marks the in-flight one interrupted without reading a log, then loads a log only when it is touched', async () => {
    const first = startCore();
    const finished = await Promise.all(range(1, 5).map(async (i) => (await first.manager.create({ task: `What is ${i} + ${i * 7}?` })).sessionId));
    await Promise.all(finished.map((sessionId) => untilFinished(first.sqlite, sessionId)));
    const inFlight = (await first.manager.create({ task: 'What is 123 * 456?', options: { tokenDelayMs: 1_000 } })).sessionId;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const snapshots = new Map<string, SessionSnapshotData | undefined>(await Promise.all(finished.map(async (id) => [id, await first.manager.snapshot(id)] as const)));
    // What a crash leaves: everything committed, the in-flight session still recorded as running.
    await first.stop();

    const second = startCore();
    await second.manager.ready;
    expect(second.manager.recoveredSessionIds).toEqual([inFlight]);
    expect(second.store.logReads).toBe(0);
    expect((await second.sqlite.readEvents(inFlight, 0)).at(-1)).toMatchObject({ type: 'session.status', status: 'interrupted' });
    const page = await second.manager.list({ limit: 20 });
    expect(page.sessions.map((info) => info.sessionId).sort()).toEqual([...finished, inFlight].sort());
    expect(page.sessions.find((info) => info.sessionId === inFlight)?.status).toBe('interrupted');
    expect(second.store.logReads).toBe(0);

    const [one] = finished;
    expect(await second.manager.snapshot(one!)).toEqual(snapshots.get(one!));
    expect(second.store.logReads).toBe(1);
    expect(second.manager.activeSessionCount).toBe(0);
  });
});
