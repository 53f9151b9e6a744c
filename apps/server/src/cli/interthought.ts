import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { checkUrl } from '../store/postgres/connect.js';
import { openPostgresEventStore, PostgresOpenError } from '../store/postgres/postgres-event-store.js';
import { StoreOpenError } from '../store/sqlite-event-store.js';
import { RedisUnreachableError } from '../cluster/redis-connection.js';
import { copySessions } from './copy-sessions.js';
import { MigrateUsageError, openSource } from './migrate-source.js';

const USAGE = `Usage: pnpm interthought migrate --from <sqlite file | redis url> --to <postgres url>

  Copies every session, event, snapshot and the share-link key from the SQLite file, or from a
  Redis-only cluster's Redis (redis://, rediss:// or unix:///path/to/socket), into the Postgres
  database (migrating its schema first), builds the corrections index there from the copied logs,
  then checks each session's last seq and event count on both sides. Safe to re-run. Stop the
  servers that use the source first.`;

/** Runs `migrate`; answers the exit code (2: a usage mistake, 1: a store that cannot be used or a copy that does not match). */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'migrate') {
    console.error(command === undefined || command === '--help' ? USAGE : `Unknown command ${JSON.stringify(command)}.\n\n${USAGE}`);
    return command === '--help' ? 0 : 2;
  }
  let from: string | undefined;
  let to: string | undefined;
  try {
    ({ from, to } = parseArgs({ args: rest, options: { from: { type: 'string' }, to: { type: 'string' } } }).values);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (from === undefined || to === undefined) {
    console.error(`migrate needs both --from and --to.\n\n${USAGE}`);
    return 2;
  }
  try {
    checkUrl(to);
    const source = await openSource(from, resolve(process.env['INIT_CWD'] ?? process.cwd()));
    try {
      const target = await openPostgresEventStore({ url: to });
      try {
        const report = await copySessions(source, target, (line) => console.log(line));
        if (report.mismatches.length > 0) {
          console.error(`The copy does not match the source for ${report.mismatches.length} sessions:\n  ${report.mismatches.join('\n  ')}`);
          return 1;
        }
        console.log(`Copied ${report.sessions} sessions and ${report.events} events to ${target.target}; every session's last seq and event count match.`);
        return 0;
      } finally {
        await target.close();
      }
    } finally {
      await source.close();
    }
  } catch (error) {
    // Mistakes are one line on stderr, never a stack trace.
    if (error instanceof MigrateUsageError || (error instanceof PostgresOpenError && error.code === 'BAD_URL')) {
      console.error(`migrate: ${error.message}`);
      return 2;
    }
    if (error instanceof StoreOpenError || error instanceof PostgresOpenError || error instanceof RedisUnreachableError) {
      console.error(`migrate: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
