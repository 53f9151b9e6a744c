import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StreamResult } from '../load/jobs.js';
import { startPostgresServer, type PostgresServer } from '../../apps/server/test/support/postgres-server.js';
import { check, describeDisruption, figure, measureStream, perSecond, ratio, streamSpec, times, type Figure, type Scenario, type ScenarioReport } from './scenario.js';

interface StoreVariant {
  label: string;
  env: Record<string, string>;
}

interface StoreRun {
  fixed: StreamResult;
  saturation: StreamResult;
}

/**
 * The same traffic against Interthought with its SQLite store in memory (`:memory:`), in a temp
 * file, and on a PostgreSQL of its own on this machine (initdb in a temp dir, loopback TCP).
 */
export const storeScenario: Scenario = {
  name: 'store',
  title: 'Store overhead',
  async run(context): Promise<ScenarioReport> {
    const scale = context.scale.store;
    const directory = mkdtempSync(join(tmpdir(), 'interthought-bench-'));
    const file = join(directory, 'events.db');
    const variants: StoreVariant[] = [
      { label: 'in memory', env: { INTERTHOUGHT_DB: ':memory:' } },
      { label: 'SQLite file', env: { INTERTHOUGHT_DB: file } },
    ];
    const runs = new Map<string, StoreRun>();
    const notes: string[] = [];
    let postgres: PostgresServer | undefined;
    try {
      postgres = await startPostgresServer();
      variants.push({ label: 'Postgres', env: { INTERTHOUGHT_DATABASE_URL: await postgres.createDatabase() } });
    } catch (error) {
      notes.push(`No Postgres row: ${(error as Error).message.split('\n')[0]}`);
    }
    try {
      for (const variant of variants) {
        context.log(`store: ${variant.label}, ${perSecond(scale.offeredPerSec)} offered and saturation`);
        const run = await context.withTarget('interthought', { label: `interthought (${variant.label})`, env: variant.env }, async (target) => ({
          fixed: await measureStream(context, streamSpec(context, target.wsUrl, scale, scale.offeredPerSec), `${variant.label} at ${perSecond(scale.offeredPerSec)}`),
          saturation: await measureStream(context, streamSpec(context, target.wsUrl, scale, 'max'), `${variant.label} at saturation`),
        }));
        runs.set(variant.label, run);
      }
      if (existsSync(file)) notes.push(`The SQLite file held ${(statSync(file).size / 1_048_576).toFixed(1)} MiB at the end (plus its WAL).`);
      else notes.push('No SQLite file was written: the server did not use INTERTHOUGHT_DB, so the file row measures the in-memory store.');
    } finally {
      rmSync(directory, { recursive: true, force: true });
      await postgres?.stop();
    }
    for (const [label, run] of runs) {
      for (const remark of [describeDisruption(run.fixed, `${label} at ${perSecond(scale.offeredPerSec)}`), describeDisruption(run.saturation, `${label} at saturation`)]) {
        if (remark) notes.push(remark);
      }
    }
    const memory = runs.get('in memory');
    const figures: Figure[] = [];
    for (const variant of variants.slice(1)) {
      const run = runs.get(variant.label);
      const pair = (read: (r: StoreRun) => number) => ({ value: run ? read(run) : null, baseline: memory ? read(memory) : null });
      figures.push(
        figure(`${variant.label}: saturation delivered`, 'msgs/s', 'higher', pair((r) => r.saturation.deliveredPerSec), 'in memory'),
        figure(`${variant.label}: p99 at ${perSecond(scale.offeredPerSec)}`, 'ms', 'lower', pair((r) => r.fixed.latency.p99), 'in memory'),
      );
    }
    const fileRun = runs.get('SQLite file');
    const fileRatio = ratio(fileRun?.saturation.deliveredPerSec ?? null, memory?.saturation.deliveredPerSec ?? null);
    const postgresRun = runs.get('Postgres');
    const postgresRatio = ratio(postgresRun?.saturation.deliveredPerSec ?? null, memory?.saturation.deliveredPerSec ?? null);
    notes.push(`${scale.sessions} sessions × ${scale.subscribers} subscribers; "in memory" is INTERTHOUGHT_DB=:memory: (SQLite without a file), and the ratio column compares with it, not raw ws.`);
    notes.push('Postgres runs on the same machine (fsync on, synchronous_commit on): each group commit is BEGIN, one move-and-insert statement, the summaries, COMMIT: four or more round trips and one WAL fsync, against SQLite\'s in-process transaction.');
    const targets = [check('sqlite', 'SQLite file throughput vs in memory', fileRatio, { min: 0.8 }, times)];
    // A first bar (half of in-memory at saturation), to be raised once runs on an unshared machine say what Postgres holds.
    if (postgresRun !== undefined) targets.push(check('postgres', 'Postgres throughput vs in memory', postgresRatio, { min: 0.5 }, times));
    return {
      figures,
      targets,
      notes,
      details: Object.fromEntries(runs),
    };
  },
};
