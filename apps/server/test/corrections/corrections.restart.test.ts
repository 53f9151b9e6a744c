import Database from 'better-sqlite3';
import type { CorrectionRecord } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { useDurableScope } from '../durability/support/durable-scope.js';
import { startDurableServer, type TempFolder } from '../durability/support/durable-server.js';
import type { TestClient } from '../support/ws-client.js';
import { correct, exportLines, finished, listCorrections, reject, waiting } from './support.js';

/** Three real server processes start one after another here, on a machine that may be busy. */
const PROCESS_TEST_MS = 120_000;

let folder: TempFolder;
const connect = useDurableScope((made) => (folder = made));

/** An edited thought and a refused call, made by `client`: the records the index holds for them. */
async function makeCorrections(client: TestClient, baseUrl: string): Promise<CorrectionRecord[]> {
  const { sessionId, chain } = await finished(client, 'What is 11 * 11?');
  await correct(client, sessionId, chain[0]!.stepId, 'Eleven elevens.', 'plainer');
  const refused = await waiting(client, 'What is 30% of 90?');
  await reject(client, refused.sessionId, refused.stepId, 'do it in your head');
  const { corrections } = await listCorrections({ baseUrl });
  expect(corrections.map((record) => record.correction)).toEqual(['rejected', 'edited']);
  return corrections;
}

/*
 * The SQLite store's index across restarts of a real server process (PROTOCOL.md §26): kept in the
 * database file, and built from the log at start for a file from before the index.
 */
describe('the corrections index on SQLite across restarts', () => {
  it('lists and exports the same corrections after a restart', async () => {
    const env = { INTERTHOUGHT_DB: folder.file('sessions.db'), INTERTHOUGHT_TOKEN_DELAY_MS: '0' };
    const first = await startDurableServer(env);
    const made = await makeCorrections((await connect(first.wsUrl)).client, first.url);
    const exportedBefore = (await exportLines({ baseUrl: first.url }, 'preference')).lines;
    expect(exportedBefore).toHaveLength(2);
    await first.stop();

    const second = await startDurableServer(env);
    expect((await listCorrections({ baseUrl: second.url })).corrections).toEqual(made);
    expect((await exportLines({ baseUrl: second.url }, 'preference')).lines).toEqual(exportedBefore);
  }, PROCESS_TEST_MS);

  it('builds the index at start for a database from before it, once, and keeps it from then on', async () => {
    const file = folder.file('sessions.db');
    const env = { INTERTHOUGHT_DB: file, INTERTHOUGHT_TOKEN_DELAY_MS: '0' };
    const first = await startDurableServer(env);
    const made = await makeCorrections((await connect(first.wsUrl)).client, first.url);
    await first.stop();

    // Back to the schema before the index: its table gone, the file at the version before it.
    const db = new Database(file);
    db.exec('DROP TABLE corrections; DROP TABLE store_facts;');
    db.pragma(`user_version = ${MIGRATIONS.length - 1}`);
    db.close();

    const second = await startDurableServer(env);
    expect((await listCorrections({ baseUrl: second.url })).corrections).toEqual(made);
    const client = (await connect(second.wsUrl)).client;
    const { sessionId, chain } = await finished(client, 'What is 2 * 21?');
    const fresh = await correct(client, sessionId, chain[0]!.stepId, 'Twice twenty-one.');
    await second.stop();

    const raw = new Database(file, { readonly: true });
    const rows = raw.prepare('SELECT corrected_step_id FROM corrections').all();
    raw.close();
    expect(rows).toHaveLength(3);
    const third = await startDurableServer(env);
    const after = (await listCorrections({ baseUrl: third.url })).corrections;
    expect(after.map((record) => record.correctedStepId)).toEqual([fresh, ...made.map((record) => record.correctedStepId)]);
  }, PROCESS_TEST_MS);
});
