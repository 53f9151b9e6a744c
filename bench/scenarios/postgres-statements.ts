import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PostgresServer } from '../../apps/server/test/support/postgres-server.js';

/** `sql` run by the server's own psql (the bench has no pg driver of its own); its output, trimmed. */
async function psql(url: string, sql: string): Promise<string> {
  const root = '/usr/lib/postgresql';
  const major = readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'psql'))).sort((a, b) => Number(b) - Number(a))[0];
  if (major === undefined) throw new Error('psql was not found under /usr/lib/postgresql/*/bin.');
  const { stdout } = await promisify(execFile)(join(root, major, 'bin', 'psql'), ['-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql, url]);
  return stdout.trim();
}

/** Where a group commit's time goes on Postgres, as the server counted it (pg_stat_statements). */
export interface CommitProfile {
  /** Group commits (COMMITs of the append transaction). */
  commits: number;
  /** Events written per commit, by the server's counters. */
  eventsPerCommit: number;
  /** Statements per commit: each is one round trip from the node (BEGIN, the move-and-insert, summaries, corrections, COMMIT). */
  statementsPerCommit: number;
  /** Mean time Postgres spent executing each kind of statement, in ms (the COMMIT's is the WAL flush). */
  meanMs: Record<string, number>;
  /** How often each kind ran per commit. */
  perCommit: Record<string, number>;
  /** The server's mean time to write a small batch, round trips and flush included (ms). */
  transactionMs: number;
}

/** The statements of an append transaction, by what they do. */
function kindOf(query: string): string | undefined {
  const text = query.trim();
  if (/^BEGIN/i.test(text)) return 'BEGIN';
  if (/^COMMIT/i.test(text)) return 'COMMIT';
  if (/WITH moved AS/.test(text)) return 'move-and-insert';
  // The same statement as updateSession's, outside any batch: counted, not told apart.
  if (/^UPDATE sessions SET status/.test(text)) return 'session row update';
  if (/^INSERT INTO corrections/.test(text)) return 'corrections';
  return undefined;
}

/** Load pg_stat_statements into the bench's own server (a restart) so the run can count statements. */
export async function enableStatementStats(server: PostgresServer): Promise<void> {
  await psql(server.url(), "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
  await server.restart();
}

/** The counters of the database at `url`, from zero: call before the measured traffic. */
export async function resetStatementStats(url: string): Promise<void> {
  await psql(url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await psql(url, 'SELECT pg_stat_statements_reset()');
}

/** The server's own counters of its group commits (`/api/metrics`). */
export interface CommitCounters {
  events: number;
  transactions: number;
  /** Mean time to write a small batch, as the server measures it (ms). */
  transactionMs: number;
}

export async function readCommitCounters(httpUrl: string): Promise<CommitCounters> {
  const text = await (await fetch(`${httpUrl}/api/metrics`)).text();
  const value = (name: string): number => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    events: value('interthought_events_written_total'),
    transactions: value('interthought_store_transactions_total'),
    transactionMs: value('interthought_transaction_seconds') * 1_000,
  };
}

/** What the append transactions did since the last reset; `before` and `after`: the server's counters around it. */
export async function readCommitProfile(url: string, before: CommitCounters, after: CommitCounters): Promise<CommitProfile | undefined> {
  const json = await psql(
    url,
    `SELECT coalesce(json_agg(json_build_object('query', query, 'calls', calls, 'rows', rows, 'total', total_exec_time)), '[]') FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  const rows = JSON.parse(json) as { query: string; calls: number; rows: number; total: number }[];
  const calls: Record<string, number> = {};
  const totals: Record<string, number> = {};
  for (const row of rows) {
    const kind = kindOf(row.query);
    if (kind === undefined) continue;
    calls[kind] = (calls[kind] ?? 0) + row.calls;
    totals[kind] = (totals[kind] ?? 0) + row.total;
  }
  const commits = calls['COMMIT'] ?? 0;
  if (commits === 0) return undefined;
  const perCommit = Object.fromEntries(Object.entries(calls).map(([kind, count]) => [kind, count / commits]));
  const meanMs = Object.fromEntries(Object.entries(calls).map(([kind, count]) => [kind, totals[kind]! / count]));
  const statements = Object.values(calls).reduce((sum, count) => sum + count, 0);
  const transactions = after.transactions - before.transactions;
  return {
    commits,
    eventsPerCommit: transactions > 0 ? (after.events - before.events) / transactions : NaN,
    statementsPerCommit: statements / commits,
    meanMs,
    perCommit,
    transactionMs: after.transactionMs,
  };
}
