/**
 * The chaos run: the real server, on loopback only, under seeded abuse.
 *
 *   pnpm chaos              default scale (≥ 1,000 client kills, 5 kill -9 restarts, a few thousand hostile frames; ~2 minutes)
 *   pnpm chaos --smoke      tiny, in seconds (CI)
 *   pnpm chaos --seed=N     repeat the decisions of a run
 *
 * Progress goes to stderr, the summary table to stdout. Exit code 1 when any invariant broke.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCommand, UsageError } from '../bench/harness/command-line.js';
import { ChaosServer } from './chaos-server.js';
import { runClientKills } from './client-kills.js';
import { runHostileFrames } from './hostile-frames.js';
import type { PhaseContext } from './phase.js';
import { renderReport } from './report.js';
import { SCALES, type ChaosMode } from './scale.js';
import { SeededRandom, randomSeed } from '../apps/server/test/support/seeded-random.js';
import { runServerRestarts } from './server-restarts.js';
import { CHAOS_WORKER_TOKEN, runWorkerKills } from './worker-kills.js';
import { StallProbe, type StallReport } from './stall-probe.js';
import { ChaosTally } from './tally.js';

const USAGE = 'Usage: pnpm chaos [--smoke] [--seed=N] [--only=client-kills,hostile-frames,worker-kills,server-restarts]';

function readCommandLine(argv: string[]): { mode: ChaosMode; seed: number; phases: Phase[] } {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== '--'),
    options: {
      smoke: { type: 'boolean', default: false },
      seed: { type: 'string' },
      only: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) throw new UsageError(USAGE);
  const seed = values.seed === undefined ? randomSeed() : Number(values.seed);
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > 0xffffffff) throw new UsageError(`--seed must be a whole number from 0 to 4294967295, got "${values.seed}".\n${USAGE}`);
  const names = values.only?.split(',').map((name) => name.trim()) ?? PHASES.map((phase) => phase.name);
  const unknown = names.filter((name) => !PHASES.some((phase) => phase.name === name));
  if (unknown.length > 0) throw new UsageError(`Unknown phase ${unknown.join(', ')}.\n${USAGE}`);
  return { mode: values.smoke ? 'smoke' : 'default', seed, phases: PHASES.filter((phase) => names.includes(phase.name)) };
}

const log = (line: string) => process.stderr.write(`[chaos] ${line}\n`);

interface Phase {
  name: string;
  run: (context: PhaseContext) => Promise<void>;
}

const PHASES: Phase[] = [
  { name: 'client-kills', run: runClientKills },
  { name: 'hostile-frames', run: runHostileFrames },
  { name: 'worker-kills', run: runWorkerKills },
  // Last: it kills the server again and again.
  { name: 'server-restarts', run: runServerRestarts },
];

/**
 * The server's settings besides the bench harness's: one SQLite file for the whole run; the
 * default request limits (20/s, burst 40), since no chaos client exceeds them on one connection
 * and the hostile bursts must meet the real limiter; a small soft buffer cap, so a follower that
 * stalls gets coalesced deltas (and 4008 past the hard cap).
 */
function serverEnv(dataDir: string): Record<string, string> {
  return {
    INTERTHOUGHT_DB: join(dataDir, 'chaos.db'),
    INTERTHOUGHT_RATE_PER_SEC: '20',
    INTERTHOUGHT_RATE_BURST: '40',
    INTERTHOUGHT_SOFT_BUFFER_BYTES: '16384',
    // /ws/agents on, for the worker-kills phase.
    INTERTHOUGHT_AGENT_TOKENS: CHAOS_WORKER_TOKEN,
  };
}

async function main(): Promise<number> {
  const { mode, seed, phases } = readCommandLine(process.argv.slice(2));
  const scale = SCALES[mode];
  const tally = new ChaosTally();
  const dataDir = mkdtempSync(join(tmpdir(), 'interthought-chaos-'));
  const probe = StallProbe.start(scale.stallProbeIntervalMs);
  const server = new ChaosServer('server', serverEnv(dataDir), tally);
  const context: PhaseContext = { scale, random: new SeededRandom(seed), tally, probe, server, log };
  const stopAll = async () => {
    probe.stop();
    await server.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const onSignal = () => void stopAll().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  log(`${mode} run, seed ${seed}`);
  const started = performance.now();
  let worstStall: StallReport | undefined;
  try {
    await server.start().then(
      () => probe.watch(server.httpUrl),
      (error: unknown) => tally.violation('start', `the server did not start: ${error instanceof Error ? error.message : String(error)}`),
    );
    for (const { name, run } of server.running ? phases : []) {
      log(`▶ ${name}`);
      const phaseStarted = performance.now();
      try {
        await run(context);
      } catch (error) {
        tally.violation(name, `the phase stopped: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
      const stall = await probe.report().catch(() => undefined);
      if (stall !== undefined && (worstStall === undefined || stall.worstMs > worstStall.worstMs)) worstStall = { ...stall, polls: stall.polls + (worstStall?.polls ?? 0) };
      else if (stall !== undefined && worstStall !== undefined) worstStall.polls += stall.polls;
      const seconds = ((performance.now() - phaseStarted) / 1_000).toFixed(1);
      log(`✓ ${name} in ${seconds} s: worst health answer ${stall?.worstMs.toFixed(1) ?? '?'} ms (at ${stall?.worstAt ?? '?'}), ${tally.violationCount} violations so far`);
      if (!server.running) break;
    }
  } finally {
    await stopAll();
  }
  const serverOutput = tally.passed ? '' : server.outputTail(30);
  process.stdout.write(`${renderReport({ mode, seed, only: phases.length === PHASES.length ? undefined : phases.map((phase) => phase.name).join(','), durationMs: performance.now() - started, tally, stall: worstStall, peakRssBytes: server.peakRssBytes, serverOutput })}\n`);
  return tally.passed ? 0 : 1;
}

runCommand(main);
