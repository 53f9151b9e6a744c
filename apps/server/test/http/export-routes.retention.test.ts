import { chainSteps, createSessionState, type SessionEvent, type SessionSnapshotData } from '@interthought/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguredStore } from '../../src/config/store-from-config.js';
import type { SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { startServer, type RunningServer } from '../support/server.js';
import { testConfig } from '../support/config.js';
import { TestClient } from '../support/ws-client.js';
import { exportOf, finishedSession, importBody, linesOf, rejectedThenCorrectedSession, snapshotOf } from './support/exported-sessions.js';

/** Retention keeps about this many newest events per session (INTERTHOUGHT_RETAIN_EVENTS). */
const RETAIN = 10;

// Export and import of a log that retention trimmed (PROTOCOL.md §16.5, §20.5), on the SQLite store a server with INTERTHOUGHT_RETAIN_EVENTS uses.
describe('export and import of a trimmed log', () => {
  let store: SqliteEventStore;
  let server: RunningServer;
  let client: TestClient;
  beforeAll(async () => {
    store = openConfiguredStore(testConfig({ db: ':memory:', retainEventsPerSession: RETAIN }));
    server = await startServer({ retainEventsPerSession: RETAIN }, { store });
    client = await TestClient.connect(server.wsUrl);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
    await store.close();
  });

  /** The export's lines: the header, the snapshot line, the kept events. */
  async function trimmedExport(sessionId: string) {
    const lines = linesOf(await (await exportOf(server, sessionId)).text());
    const { type, ...snapshot } = JSON.parse(lines[1]!) as SessionSnapshotData & { type: string };
    expect(type).toBe('session.snapshot');
    const events = lines.slice(2).map((line) => JSON.parse(line) as SessionEvent);
    expect(events[0]!.seq).toBe(snapshot.seq + 1);
    expect(events.length).toBeLessThanOrEqual(RETAIN + RETAIN / 4);
    expect(lines.slice(2)).toEqual(await store.readEventFrames(sessionId, snapshot.seq));
    return { lines, snapshot, events };
  }

  async function importOf(lines: string[]): Promise<string> {
    const response = await importBody(server, lines.join('\n'));
    expect(response.status).toBe(201);
    return ((await response.json()) as { session: { sessionId: string } }).session.sessionId;
  }

  it('exports the snapshot the kept events start from, and imports it as the chain rebuilt, then the kept events after it', async () => {
    const sessionId = await rejectedThenCorrectedSession(client);
    const { lines, snapshot, events } = await trimmedExport(sessionId);
    const newId = await importOf(lines);
    // Nothing was invalidated before the trim here, so the chain rebuilt is the whole tree.
    const original = await snapshotOf(server, sessionId);
    const copy = await snapshotOf(server, newId);
    // The run time of trimmed events is not in the log the import writes: it counts the kept events' (PROTOCOL.md §20.5).
    const { runTime: _copied, ...copyRest } = copy;
    const { runTime: _original, ...originalRest } = original;
    expect(copyRest).toEqual({ ...originalRest, session: { ...original.session, sessionId: newId }, seq: copy.seq });
    // Stored as the rebuilt chain (2 events) then the kept ones: as long as retention lets the import's own log be.
    expect(copy.seq).toBe(events.length + 2);
  });

  it('keeps the current chain of a snapshot, not the branches a correction left before the trim', async () => {
    const sessionId = await finishedSession(client);
    const { chain, seq } = await snapshotOf(server, sessionId);
    const first = chain[0]!;
    const correct = client.send({ type: 'step.correct', sessionId, stepId: first, content: 'Let me multiply 17 by 23.' });
    expect(await client.answerTo(correct)).toMatchObject({ type: 'correction.accepted' });
    await client.waitFor((frame) => frame.type === 'session.status' && frame.sessionId === sessionId && frame.status === 'completed' && frame.seq > seq, 'the regeneration');
    const { lines, snapshot } = await trimmedExport(sessionId);
    expect(snapshot.steps.some((step) => step.status === 'invalidated')).toBe(true);

    const newId = await importOf(lines);
    const original = await snapshotOf(server, sessionId);
    const copy = await snapshotOf(server, newId);
    // The revision is carried over by the copy of the chain (`steps.copied.revision`).
    expect(copy.session).toMatchObject({ sessionId: newId, status: original.session.status, task: original.session.task, revision: 1 });
    expect(original.session.revision).toBe(1);
    expect(copy.chain).toEqual(original.chain);
    const originalChain = chainSteps(createSessionState(original)).map(({ correctionOf: _replaced, ...step }) => step);
    expect(copy.steps).toEqual(originalChain);
  });
});
