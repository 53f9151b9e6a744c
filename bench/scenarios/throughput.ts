import type { TargetKind, TargetProcess } from '../harness/target-process.js';
import type { StreamResult } from '../load/jobs.js';
import {
  TARGET_KINDS,
  check,
  describeDisruption,
  figure,
  measureStream,
  perSecond,
  ratio,
  streamSpec,
  times,
  type BenchContext,
  type Figure,
  withBothTargets,
  type Scenario,
  type ScenarioReport,
} from './scenario.js';

type Level = number | 'max';

interface LevelRun {
  result: StreamResult;
  /** Server CPU time over the run's wall time, in percent of one core. */
  cpuPercent: number;
}

const levelName = (level: Level) => (level === 'max' ? 'saturation' : `${perSecond(level)} offered`);

async function runLevel(context: BenchContext, target: TargetProcess, level: Level): Promise<LevelRun> {
  const before = await target.probe(false);
  const started = performance.now();
  const spec = streamSpec(context, target.wsUrl, context.scale.throughput, level);
  const result = await measureStream(context, spec, `${target.label} at ${levelName(level)}`);
  const after = await target.probe(false);
  const cpuMicros = after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system;
  return { result, cpuPercent: (cpuMicros / 1_000 / (performance.now() - started)) * 100 };
}

function levelFigures(level: Level, runs: Record<TargetKind, LevelRun | undefined>): Figure[] {
  const pick = (read: (run: LevelRun) => number) => ({
    value: runs.interthought ? read(runs.interthought) : null,
    baseline: runs['raw-ws'] ? read(runs['raw-ws']) : null,
  });
  const name = levelName(level);
  const rows = [
    figure(`${name}: delivered`, 'msgs/s', 'higher', pick((run) => run.result.deliveredPerSec)),
    figure(`${name}: latency p50`, 'ms', 'lower', pick((run) => run.result.latency.p50)),
    figure(`${name}: latency p99`, 'ms', 'lower', pick((run) => run.result.latency.p99)),
  ];
  if (level !== 'max') {
    rows.push(figure(`${name}: latency p99.9`, 'ms', 'lower', pick((run) => run.result.latency.p999)));
    rows.push(figure(`${name}: server CPU`, '% of a core', 'lower', pick((run) => run.cpuPercent)));
  }
  return rows;
}

/** S sessions × C subscribers at fixed offered rates and at saturation, against both servers. */
export const throughputScenario: Scenario = {
  name: 'throughput',
  title: 'Throughput and latency',
  async run(context): Promise<ScenarioReport> {
    const scale = context.scale.throughput;
    const levels: Level[] = [...scale.offeredPerSec, 'max'];
    const runs = new Map<Level, Record<TargetKind, LevelRun | undefined>>(levels.map((level) => [level, { interthought: undefined, 'raw-ws': undefined }]));
    await withBothTargets(context, async (targets) => {
      for (const level of levels) {
        for (const kind of TARGET_KINDS) {
          context.log(`throughput: ${kind}, ${scale.sessions} sessions × ${scale.subscribers} subscribers, ${levelName(level)}`);
          const byKind = runs.get(level);
          if (byKind) byKind[kind] = await runLevel(context, targets[kind], level);
        }
      }
    });
    const figures = levels.flatMap((level) => levelFigures(level, runs.get(level) ?? { interthought: undefined, 'raw-ws': undefined }));
    const saturation = runs.get('max');
    const firstLevel = scale.offeredPerSec[0] ?? 0;
    const fixed = runs.get(firstLevel);
    const throughputRatio = ratio(saturation?.interthought?.result.deliveredPerSec ?? null, saturation?.['raw-ws']?.result.deliveredPerSec ?? null);
    const p99Ratio = ratio(fixed?.interthought?.result.latency.p99 ?? null, fixed?.['raw-ws']?.result.latency.p99 ?? null);
    return {
      figures,
      targets: [
        check('throughput', 'Throughput at saturation vs raw ws', throughputRatio, { min: 0.8 }, times),
        check('p99-latency', `p99 latency at ${perSecond(firstLevel)} vs raw ws`, p99Ratio, { max: 2 }, times),
      ],
      notes: [
        ...levels.flatMap((level) =>
          TARGET_KINDS.flatMap((kind) => {
            const run = runs.get(level)?.[kind];
            const remark = run && describeDisruption(run.result, `${kind} at ${levelName(level)}`);
            return remark ? [remark] : [];
          }),
        ),
        `${scale.sessions} sessions × ${scale.subscribers} subscribers, ${context.scale.deltaSize}-character deltas; offered rates count delivered frames (per-session rate × subscribers).`,
        'Latency is emit (the firehose stamp) → receive, both read on the machine-wide monotonic clock.',
      ],
      details: Object.fromEntries(levels.map((level) => [String(level), runs.get(level)])),
    };
  },
};
