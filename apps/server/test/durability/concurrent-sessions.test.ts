import type { SessionEvent } from '@interthought/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient, isSessionEvent } from '../support/ws-client.js';
import { tempFolder } from './support/durable-server.js';
import { RecordingStore, eventKey } from '../support/recording-store.js';
import { expectCompletedLog, range, seqsOf } from './support/log-checks.js';

const CLIENTS = 4;
const SESSIONS_PER_CLIENT = 5;

let folder: ReturnType<typeof tempFolder>;
let sqlite: SqliteEventStore;
let store: RecordingStore;
let server: RunningServer;
const clients: TestClient[] = [];

beforeEach(() => {
  folder = tempFolder();
  sqlite = openSqliteEventStore(folder.file('sessions.db'));
});

/** The server on the SQLite file, each commit taking at least `commitCostMs` (0: this machine's disk as it is). */
async function start(commitCostMs: number): Promise<void> {
  store = new RecordingStore(sqlite, { commitCostMs: commitCostMs });
  server = await startServer({ tokenDelayMs: 0 }, { store });
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server?.close();
  await sqlite.close();
  folder.cleanup();
});

async function connect(): Promise<TestClient> {
  const client = await TestClient.connect(server.wsUrl);
  clients.push(client);
  await client.waitForType('hello');
  return client;
}

/** 20 sessions streaming at once: every log gap-free, equal to what its creator received, and never sent before committed. */
async function streamTwentySessions(): Promise<void> {
  const all = await Promise.all(range(1, CLIENTS).map(() => connect()));
  // Checked the moment each frame arrives, in this process: its event must already be committed.
  const uncommitted: string[] = [];
  for (const client of all) {
    client.socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as SessionEvent;
      if (isSessionEvent(frame) && !store.written.has(eventKey(frame))) uncommitted.push(eventKey(frame));
    });
  }
  const created = await Promise.all(
    all.flatMap((client, c) =>
      range(1, SESSIONS_PER_CLIENT).map(async (s) => ({
        client,
        // Paced so that every run is still streaming when the last one starts: they really overlap.
        sessionId: await client.createSession(`What is ${c * 10 + s + 11} * ${s + 6}?`, { options: { tokenDelayMs: 5 } }),
      })),
    ),
  );
  expect(new Set(created.map(({ sessionId }) => sessionId)).size).toBe(CLIENTS * SESSIONS_PER_CLIENT);
  const received = await Promise.all(created.map(async ({ client, sessionId }) => ({ sessionId, events: await client.untilFinished(sessionId, 30_000) })));

  expect(uncommitted).toEqual([]);
  for (const { sessionId, events } of received) {
    const stored = await sqlite.readEvents(sessionId, 0);
    expect(seqsOf(stored)).toEqual(range(1, stored.length));
    expect(stored).toEqual(events);
    expectCompletedLog(sessionId, stored);
    expect(await sqlite.getSession(sessionId)).toMatchObject({ lastSeq: stored.length, info: { status: 'completed' } });
  }

  // Every event is in exactly one transaction.
  const total = received.reduce((sum, { events }) => sum + events.length, 0);
  expect(store.committedBatches.flat()).toHaveLength(total);
  const listed = await (await fetch(`${server.baseUrl}/api/sessions?limit=100`)).json();
  expect((listed as { sessions: unknown[] }).sessions).toHaveLength(CLIENTS * SESSIONS_PER_CLIENT);
}

/** How many sessions' events the busiest transaction held. */
function mostSessionsInOneTransaction(): number {
  return Math.max(...store.committedBatches.map((keys) => new Set(keys.map((key) => key.split('#')[0])).size));
}

describe('20 sessions streaming at once into one SQLite file', () => {
  it('keeps each session\'s seqs 1…n without gaps in the store and sends no event before its transaction is committed', async () => {
    await start(0);
    await streamTwentySessions();
  });

  it('on a disk where a commit takes 1 ms, shares transactions between sessions (group commit per turn), still gap-free and written before sent', async () => {
    await start(1);
    await streamTwentySessions();
    expect(mostSessionsInOneTransaction()).toBeGreaterThan(1);
  });
});
