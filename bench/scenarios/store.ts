import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StreamResult } from '../load/jobs.js';
import { startPostgresServer, type PostgresServer } from '../../apps/server/test/support/postgres-server.js';
import { enableStatementStats, readCommitCounters, readCommitProfile, resetStatementStats, type CommitProfile } from './postgres-statements.js';
import { check, describeDisruption, figure, measureStream, perSecond, ratio, streamSpec, times, type Figure, type Scenario, type ScenarioReport } from './scenario.js';

interface StoreVariant {
  label: string;
  env: Record<string, string>;
  /** Postgres: the database, whose statements are counted per run. */
  databaseUrl?: string;
}

interface StoreRun {
  fixed: StreamResult;
  saturation: StreamResult;
  /** Postgres: what each group commit was, at the fixed rate and at saturation. */
  commits?: { fixed: CommitProfile | undefined; saturation: CommitProfile | undefined };
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
      await enableStatementStats(postgres);
      const databaseUrl = await postgres.createDatabase();
      variants.push({ label: 'Postgres', env: { INTERTHOUGHT_DATABASE_URL: databaseUrl }, databaseUrl });
    } catch (error) {
      notes.push(`No Postgres row: ${(error as Error).message.split('\n')[0]}`);
    }
    try {
      for (const variant of variants) {
        context.log(`store: ${variant.label}, ${perSecond(scale.offeredPerSec)} offered and saturation`);
        const { databaseUrl } = variant;
        // Postgres: its statements counted from zero before each measurement, read after it.
        const run = await context.withTarget('interthought', { label: `interthought (${variant.label})`, env: variant.env }, async (target): Promise<StoreRun> => {
          const counted = async <T>(measure: () => Promise<T>): Promise<{ result: T; profile: CommitProfile | undefined }> => {
            if (databaseUrl === undefined) return { result: await measure(), profile: undefined };
            await resetStatementStats(databaseUrl);
            const before = await readCommitCounters(target.httpUrl);
            const result = await measure();
            return { result, profile: await readCommitProfile(databaseUrl, before, await readCommitCounters(target.httpUrl)) };
          };
          const fixed = await counted(() => measureStream(context, streamSpec(context, target.wsUrl, scale, scale.offeredPerSec), `${variant.label} at ${perSecond(scale.offeredPerSec)}`));
          const saturation = await counted(() => measureStream(context, streamSpec(context, target.wsUrl, scale, 'max'), `${variant.label} at saturation`));
          return {
            fixed: fixed.result,
            saturation: saturation.result,
            ...(databaseUrl === undefined ? {} : { commits: { fixed: fixed.profile, saturation: saturation.profile } }),
          };
        });
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
    notes.push('Postgres runs on the same machine (fsync on, synchronous_commit on); each statement of an append is one round trip from the node, and the COMMIT waits for the WAL flush.');
    for (const [when, profile] of [[perSecond(scale.offeredPerSec), postgresRun?.commits?.fixed], ['saturation', postgresRun?.commits?.saturation]] as const) {
      if (profile !== undefined) notes.push(`Postgres at ${when}: ${describeCommits(profile)}.`);
    }
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

/** One line of where a group commit's time went, from the server's statement counters. */
function describeCommits(profile: CommitProfile): string {
  const statements = Object.entries(profile.perCommit)
    .map(([kind, count]) => `${kind} ×${count.toFixed(2)} (${profile.meanMs[kind]!.toFixed(3)} ms)`)
    .join(', ');
  return (
    `${profile.commits} group commits, ${profile.eventsPerCommit.toFixed(1)} events and ${profile.statementsPerCommit.toFixed(2)} statements (round trips) each, ` +
    `a small one ${profile.transactionMs.toFixed(2)} ms as the server times it; statements per commit (mean time Postgres spent executing each): ${statements}`
  );
}
