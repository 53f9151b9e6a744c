import type { ChaosMode } from './scale.js';
import type { StallReport } from './stall-probe.js';
import type { ChaosTally } from './tally.js';

export interface ChaosRun {
  mode: ChaosMode;
  seed: number;
  /** The phases run, when not all of them. */
  only: string | undefined;
  durationMs: number;
  tally: ChaosTally;
  stall: StallReport | undefined;
  peakRssBytes: number;
  /** The server's last lines of output, shown when the run failed. */
  serverOutput: string;
}

const number = (value: number) => value.toLocaleString('en-US');

function closes(byCode: Record<string, number>): string {
  const entries = Object.entries(byCode).sort(([a], [b]) => Number(a) - Number(b));
  return entries.length === 0 ? 'none' : entries.map(([code, count]) => `${code} × ${number(count)}`).join(', ');
}

/** The summary as a markdown table, then the violations (if any) and how to repeat the run. */
export function renderReport(run: ChaosRun): string {
  const { tally } = run;
  const rows: [string, string][] = [
    ['Events checked (order on arrival, content against the durable log)', number(tally.eventsChecked)],
    ['… of them in coalesced deltas (frames)', number(tally.coalescedFrames)],
    ['Log events read back (replays from afterSeq 0)', number(tally.logEventsRead)],
    ['Client kills mid-stream (TCP destroy or RST)', number(tally.clientKills)],
    ['Resumes with afterSeq', number(tally.resumes)],
    ['Slow-consumer closes (4008), resumed', number(tally.slowConsumerCloses)],
    ['Server kill -9 and restarts', number(tally.serverRestarts)],
    ['Agent worker kill -9 mid-run', number(tally.workerKills)],
    ['Interrupted sessions continued (session.resume)', number(tally.sessionResumes)],
    ['Hostile frames sent (connections)', `${number(tally.hostileFrames)} (${number(tally.hostileConnections)})`],
    ['Error frames received (largest, bytes)', `${number(tally.errorsReceived)} (${number(tally.largestErrorFrame)})`],
    ['Hostile connections closed by the server', closes(tally.hostileCloses)],
    ['Worst event-loop stall (GET /api/health answer, ms)', run.stall === undefined ? 'n/a' : `${run.stall.worstMs.toFixed(1)} (${number(run.stall.polls)} polls every ${run.stall.intervalMs} ms)`],
    ['Peak server RSS (MB)', (run.peakRssBytes / 1_048_576).toFixed(1)],
    ['Duration (s)', (run.durationMs / 1_000).toFixed(1)],
    ['Seed', String(run.seed)],
    ['Result', tally.passed ? 'PASS' : `FAIL (${number(tally.violationCount)} violations)`],
  ];
  const lines = ['| Chaos run | Value |', '|---|---:|', ...rows.map(([name, value]) => `| ${name} | ${value} |`)];
  if (!tally.passed) {
    lines.push('', 'Violations:');
    for (const violation of tally.violations) lines.push(`- ${violation}`);
    if (tally.unlistedViolations > 0) lines.push(`- … and ${number(tally.unlistedViolations)} more`);
    if (run.serverOutput.trim() !== '') lines.push('', "The server's last output:", '```', run.serverOutput.trimEnd(), '```');
  }
  lines.push('', `Repeat: pnpm chaos${run.mode === 'smoke' ? ' --smoke' : ''} --seed=${run.seed}${run.only === undefined ? '' : ` --only=${run.only}`}`);
  return lines.join('\n');
}
