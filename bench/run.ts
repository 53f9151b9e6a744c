/**
 * The benchmark: Interthought against a raw `ws` baseline, in the same run, on loopback.
 *
 *   pnpm bench                 quick (the default, a few minutes at most)
 *   pnpm bench --full          the real figures (10,000 idle connections, longer windows)
 *   pnpm bench --smoke         every scenario at tiny scale, in seconds (CI)
 *   pnpm bench --only=replay,throughput
 *
 * Servers and the load generator each run in their own child process. Progress goes to
 * stderr; the markdown report to stdout, its last line a one-line summary; JSON to bench/results/.
 */
import { parseArgs } from 'node:util';
import { formatFirehoseTask } from '../apps/server/src/agents/firehose/firehose-params.js';
import { runCommand, UsageError } from './harness/command-line.js';
import { LoadGenerator } from './harness/load-runner.js';
import { machineInfo } from './harness/machine.js';
import { TargetPool } from './harness/target-pool.js';
import { REPO_ROOT, profileServersInto, type TargetProcess } from './harness/target-process.js';
import { SCALES, type BenchMode, type Scale } from './modes.js';
import { renderMarkdown, summaryLine, writeResults, type BenchRun, type ScenarioOutcome } from './report.js';
import { browserChainScenario } from './scenarios/browser-chain.js';
import { clusterScenario } from './scenarios/cluster.js';
import { correctionScenario } from './scenarios/correction.js';
import { idleScenario } from './scenarios/idle.js';
import { replayScenario } from './scenarios/replay.js';
import { SCENARIO_NAMES, type BenchContext, type Scenario, type ScenarioName } from './scenarios/scenario.js';
import { slowConsumersScenario } from './scenarios/slow-consumers.js';
import { storeScenario } from './scenarios/store.js';
import { throughputScenario } from './scenarios/throughput.js';
import { workerScenario } from './scenarios/worker.js';

const SCENARIOS: Record<ScenarioName, Scenario> = {
  throughput: throughputScenario,
  idle: idleScenario,
  correction: correctionScenario,
  replay: replayScenario,
  store: storeScenario,
  'slow-consumers': slowConsumersScenario,
  'browser-chain': browserChainScenario,
  cluster: clusterScenario,
  worker: workerScenario,
};

const USAGE = `Usage: pnpm bench [--quick | --full | --smoke] [--only=${SCENARIO_NAMES.join(',')}] [--cpu-prof] [--trace]`;

/** Where `--cpu-prof` puts the servers' profiles (bench/results is git-ignored). */
const PROFILE_DIR = `${REPO_ROOT}bench/results/profiles`;

/** Where `--trace` puts the browser's traces and page CPU profiles. */
const TRACE_DIR = `${REPO_ROOT}bench/results/traces`;

function readCommandLine(argv: string[]): { mode: BenchMode; scenarios: ScenarioName[]; cpuProf: boolean; trace: boolean } {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== '--'),
    options: {
      quick: { type: 'boolean', default: false },
      full: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      only: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      trace: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) throw new UsageError(USAGE);
  const modes = (['quick', 'full', 'smoke'] as const).filter((mode) => values[mode]);
  if (modes.length > 1) throw new UsageError(`Choose one of --quick, --full, --smoke.\n${USAGE}`);
  const names = values.only === undefined ? [...SCENARIO_NAMES] : values.only.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(SCENARIO_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) throw new UsageError(`Unknown scenario ${unknown.join(', ') || '(none given)'}.\n${USAGE}`);
  return { mode: modes[0] ?? 'quick', scenarios: names as ScenarioName[], cpuProf: values['cpu-prof'], trace: values.trace };
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function runScenario(scenario: Scenario, context: BenchContext): Promise<ScenarioOutcome> {
  const started = performance.now();
  log(`▶ ${scenario.title}`);
  try {
    const report = await scenario.run(context);
    return { name: scenario.name, title: scenario.title, durationMs: Math.round(performance.now() - started), report };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`✗ ${scenario.title} failed: ${message}`);
    return { name: scenario.name, title: scenario.title, durationMs: Math.round(performance.now() - started), error: message.split('\n')[0] ?? message };
  }
}

/** Stream a little through a new server before it is measured. */
async function warmUp(target: TargetProcess, load: LoadGenerator, scale: Scale): Promise<void> {
  if (scale.serverWarmUpMs <= 0) return;
  log(`warming up ${target.label}`);
  const task = formatFirehoseTask({ rate: 500, durationMs: 30_000, size: scale.deltaSize, delayMs: 50 });
  const stream = { url: target.wsUrl, sessions: 2, subscribersPerSession: 5, watchers: 0, watchersStall: false, task, warmupMs: 0, measureMs: scale.serverWarmUpMs };
  await load.run({ kind: 'stream', stream }, 60_000 + scale.serverWarmUpMs);
}

async function main(): Promise<number> {
  const { mode, scenarios, cpuProf, trace } = readCommandLine(process.argv.slice(2));
  if (cpuProf) {
    profileServersInto(PROFILE_DIR);
    log(`CPU profiles of every server go to ${PROFILE_DIR} when it stops (profiling slows them: figures are not comparable)`);
  }
  if (trace) log(`Browser traces and page CPU profiles go to ${TRACE_DIR} (tracing slows the page: figures are not comparable)`);
  const scale = SCALES[mode];
  const load = new LoadGenerator();
  const pool = new TargetPool(scale.reuseTargets, (target) => warmUp(target, load, scale));
  const stopOnSignal = () => {
    load.close();
    void pool.stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const context: BenchContext = {
    mode,
    scale,
    log,
    ...(trace ? { traceDir: TRACE_DIR } : {}),
    withTarget: (kind, options, use) => pool.withTarget(kind, options, use),
    runLoad: (job, timeoutMs, hooks) => load.run(job, timeoutMs, hooks),
  };
  const started = performance.now();
  const run: BenchRun = { mode, startedAt: new Date().toISOString(), durationMs: 0, machine: machineInfo(), loadAverageAtEnd: 0, scenarios: [] };
  log(`${mode} run: ${scenarios.join(', ')} (load average ${run.machine.loadAverage} on ${run.machine.cpus} CPUs)`);
  try {
    for (const name of scenarios) run.scenarios.push(await runScenario(SCENARIOS[name], context));
  } finally {
    load.close();
    await pool.stopAll();
  }
  run.durationMs = Math.round(performance.now() - started);
  run.loadAverageAtEnd = machineInfo().loadAverage;
  const file = writeResults(run);
  process.stdout.write(`${renderMarkdown(run)}\n\nJSON: ${file}\n${summaryLine(run)}\n`);
  return run.scenarios.some((scenario) => scenario.error !== undefined) ? 1 : 0;
}

runCommand(main);
