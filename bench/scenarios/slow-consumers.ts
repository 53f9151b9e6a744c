import type { TargetKind, TargetProcess } from '../harness/target-process.js';
import type { StreamResult } from '../load/jobs.js';
import { TARGET_KINDS, check, closedCount, describeDisruption, figure, measureStream, perSecond, ratio, streamSpec, times, withBothTargets, type BenchContext, type Scenario, type ScenarioReport } from './scenario.js';

interface SlowRun {
  reading: StreamResult;
  stalled: StreamResult;
  /** Server RSS at the end of each window, every connection still open (bytes): the stalled backlog is the difference. */
  rssReading: number;
  rssStalled: number;
}

/**
 * Readers that watch every session, reading in the first run and stalled (TCP-level pause) in
 * the second: the only difference between the runs is the stall, so the healthy subscribers'
 * p99 ratio shows what stalled readers cost everyone else.
 */
async function measureTarget(context: BenchContext, target: TargetProcess): Promise<SlowRun> {
  const scale = context.scale.slowConsumers;
  // Both runs wait as long, so the stalled readers' buffers are full when the window opens.
  const windowed = { ...scale, warmupMs: scale.warmupMs + scale.stallLeadMs };
  const spec = (stall: boolean) => ({ ...streamSpec(context, target.wsUrl, windowed, scale.offeredPerSec, { count: scale.readers, stall }), holdAtEnd: true });
  let rssReading = 0;
  let rssStalled = 0;
  const reading = await measureStream(context, spec(false), `${target.label} with readers reading`, {
    onHolding: async () => {
      rssReading = (await target.probe()).memory.rss;
    },
  });
  const stalled = await measureStream(context, spec(true), `${target.label} with readers stalled`, {
    onHolding: async () => {
      rssStalled = (await target.probe()).memory.rss;
    },
  });
  return { reading, stalled, rssReading, rssStalled };
}

export const slowConsumersScenario: Scenario = {
  name: 'slow-consumers',
  title: 'Slow consumers',
  async run(context): Promise<ScenarioReport> {
    const scale = context.scale.slowConsumers;
    const healthy = scale.sessions * scale.subscribers;
    const runs: Partial<Record<TargetKind, SlowRun>> = {};
    await withBothTargets(context, async (targets) => {
      for (const kind of TARGET_KINDS) {
        context.log(`slow-consumers: ${kind}, ${healthy} healthy subscribers, ${scale.readers} readers of every session reading, then stalled`);
        runs[kind] = await measureTarget(context, targets[kind]);
      }
    });
    const pick = (read: (run: SlowRun) => number | null) => ({
      value: runs.interthought ? read(runs.interthought) : null,
      baseline: runs['raw-ws'] ? read(runs['raw-ws']) : null,
    });
    const degradation = (run: SlowRun) => ratio(run.stalled.latency.p99, run.reading.latency.p99);
    // What a stalled reader left unread by the end of the window, from what a reading one got per second.
    const stalledSeconds = (context.scale.startDelayMs + scale.stallLeadMs + scale.warmupMs + scale.measureMs) / 1_000;
    const backlogKiB = (run: SlowRun) => (run.reading.watcherBytesPerSec * stalledSeconds) / 1_024;
    return {
      figures: [
        figure('healthy p99, readers reading', 'ms', 'lower', pick((r) => r.reading.latency.p99)),
        figure(`healthy p99, ${scale.readers} readers stalled`, 'ms', 'lower', pick((r) => r.stalled.latency.p99)),
        figure('healthy p99 stalled / reading', '×', 'lower', pick(degradation)),
        figure('healthy delivered, readers stalled', 'msgs/s', 'higher', pick((r) => r.stalled.deliveredPerSec)),
        figure('server RSS, readers stalled − reading', 'MiB', 'lower', pick((r) => (r.rssStalled - r.rssReading) / 1_048_576)),
        figure('unread backlog per stalled reader (estimate)', 'KiB', 'lower', pick(backlogKiB)),
        figure('stalled readers closed by the server', 'connections', 'lower', pick((r) => closedCount(r.stalled.watchersClosedByServer))),
      ],
      targets: [
        check('stalled-readers', `Healthy p99 with ${scale.readers} stalled readers vs reading`, runs.interthought ? degradation(runs.interthought) : null, { max: 1.2 }, times),
      ],
      notes: [
        ...TARGET_KINDS.flatMap((kind) => {
          const run = runs[kind];
          return run ? [describeDisruption(run.reading, `${kind}, readers reading`), describeDisruption(run.stalled, `${kind}, readers stalled`)].filter((note): note is string => note !== undefined) : [];
        }),
        `${healthy} healthy subscribers over ${scale.sessions} sessions at ${perSecond(scale.offeredPerSec)} delivered, plus ${scale.readers} readers subscribed to every session; stalled readers pause their socket and the window opens ${scale.stallLeadMs} ms later. Loopback kernel buffers absorb a few MiB per socket before the server has to buffer: a backlog below that costs the server little.`,
      ],
      details: runs,
    };
  },
};
