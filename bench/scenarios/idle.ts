import { readFileSync } from 'node:fs';
import type { ProbeReport, TargetKind, TargetProcess } from '../harness/target-process.js';
import type { IdleResult } from '../load/jobs.js';
import { BenchFailure, TARGET_KINDS, check, expectKind, figure, ratio, times, type BenchContext, type Scenario, type ScenarioReport } from './scenario.js';

/** File descriptors the load generator keeps for itself besides its connections. */
const FD_HEADROOM = 256;

/** The soft limit on open files (every connection is one on each side). */
function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return line === undefined || line === 'unlimited' ? undefined : Number(line);
  } catch {
    return undefined;
  }
}

interface IdleMeasurement {
  result: IdleResult;
  before: ProbeReport;
  holding: ProbeReport;
  /** /proc VmRSS, a cross-check of the probe's rss. */
  procRssBefore: number | undefined;
  procRssHolding: number | undefined;
  rssPerConnection: number;
  heapPerConnection: number;
}

async function measureIdle(context: BenchContext, target: TargetProcess, connections: number): Promise<IdleMeasurement> {
  const before = await target.probe();
  const procRssBefore = target.procRss();
  let holding: ProbeReport | undefined;
  let procRssHolding: number | undefined;
  const result = expectKind(
    await context.runLoad({ kind: 'idle', url: target.wsUrl, connections }, 120_000 + connections * 20, {
      onHolding: async () => {
        holding = await target.probe();
        procRssHolding = target.procRss();
      },
    }),
    'idle',
  );
  if (holding === undefined) throw new BenchFailure(`${target.label}: the idle load never held its connections.`);
  const held = result.connections;
  return {
    result,
    before,
    holding,
    procRssBefore,
    procRssHolding,
    rssPerConnection: (holding.memory.rss - before.memory.rss) / held,
    heapPerConnection: (holding.memory.heapUsed + holding.memory.external - before.memory.heapUsed - before.memory.external) / held,
  };
}

/** Hold N idle connections and divide the server's memory growth by N, against both servers. */
export const idleScenario: Scenario = {
  name: 'idle',
  title: 'Idle connections',
  async run(context): Promise<ScenarioReport> {
    const notes: string[] = [];
    let connections = context.scale.idle.connections;
    const limit = openFileLimit();
    if (limit !== undefined && connections + FD_HEADROOM > limit) {
      notes.push(`Capped at ${limit - FD_HEADROOM} connections by the open-file limit (${limit}); raise it with \`ulimit -n ${connections + FD_HEADROOM}\`.`);
      connections = limit - FD_HEADROOM;
    }
    const measured: Partial<Record<TargetKind, IdleMeasurement>> = {};
    for (const kind of TARGET_KINDS) {
      context.log(`idle: ${kind}, ${connections} connections`);
      measured[kind] = await context.withTarget(kind, {}, (target) => measureIdle(context, target, connections));
      const errors = Object.keys(measured[kind]?.result.errors ?? {});
      if (errors.length > 0) throw new BenchFailure(`idle: ${kind} sent error frames: ${errors.join(', ')}.`);
    }
    const kb = (bytes: number | undefined) => (bytes === undefined ? null : bytes / 1_024);
    const rss = { value: kb(measured.interthought?.rssPerConnection), baseline: kb(measured['raw-ws']?.rssPerConnection) };
    const heap = { value: kb(measured.interthought?.heapPerConnection), baseline: kb(measured['raw-ws']?.heapPerConnection) };
    notes.push(`${connections} connections, each after its hello; memory after a full GC (--expose-gc), growth over the same server idle.`);
    if (context.scale.reuseTargets) notes.push('Smoke mode shares servers between scenarios, so per-connection memory here is only indicative.');
    return {
      figures: [
        figure('RSS per connection', 'KiB', 'lower', rss),
        figure('heap + external per connection', 'KiB', 'lower', heap),
        figure('time to open all', 'ms', 'lower', { value: measured.interthought?.result.connectMs ?? null, baseline: measured['raw-ws']?.result.connectMs ?? null }),
      ],
      targets: [check('idle-memory', 'Idle RSS per connection vs raw ws', ratio(rss.value, rss.baseline), { max: 2 }, times)],
      notes,
      details: { connections, ...measured },
    };
  },
};
