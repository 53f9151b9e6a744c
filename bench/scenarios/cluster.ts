import { RedisProcess } from '../harness/redis-process.js';
import type { TargetProcess } from '../harness/target-process.js';
import type { FollowGroupResult, SubscriberGroup } from '../load/jobs.js';
import type { SeqFault } from '../load/seq-tracker.js';
import { runLevel, runTakeover, seqTotals, type Level, type LevelRun, type TakeoverRun } from './cluster-runs.js';
import { check, figure, millis, perSecond, ratio, times, type BenchContext, type Figure, type Scenario, type ScenarioReport, type TargetCheck } from './scenario.js';

const OWNER = 'owner node';
const OTHER = 'other node';
const SINGLE = 'single node';

const levelName = (level: Level) => (level === 'max' ? 'saturation' : `${perSecond(level)} offered`);

/** Every run of the scenario, by level: the single-node reference and the cluster. */
interface ClusterRuns {
  single: Map<Level, LevelRun>;
  cluster: Map<Level, LevelRun>;
  takeover: TakeoverRun | undefined;
  aofBytes: number;
}

function group(run: LevelRun | undefined, label: string): FollowGroupResult | undefined {
  return run?.result.groups.find((candidate) => candidate.label === label);
}

/**
 * Redis (AOF, fsync always), nodes a and b, and the single node (SQLite in memory, both nodes'
 * subscribers on its one server) all up at once, so each level runs on the single node and then
 * on the cluster, and other work on the machine weighs on both alike; then the owner's kill -9.
 */
async function measure(context: BenchContext, levels: Level[], runs: ClusterRuns): Promise<void> {
  const scale = context.scale.cluster;
  const perNode = scale.subscribersPerNode;
  const redis = await RedisProcess.start();
  context.log(`cluster: redis-server pid ${redis.pid} on ${redis.socket} (appendonly yes, appendfsync always)`);
  const nodeEnv = (nodeId: string) => ({
    INTERTHOUGHT_REDIS_URL: redis.url,
    INTERTHOUGHT_NODE_ID: nodeId,
    INTERTHOUGHT_LEASE_TTL_MS: String(scale.leaseTtlMs),
    INTERTHOUGHT_SWEEP_MS: String(scale.sweepMs),
  });
  const withNode = <T>(nodeId: string, use: (node: TargetProcess) => Promise<T>) =>
    context.withTarget('interthought', { label: `node ${nodeId}`, env: nodeEnv(nodeId), exclusive: true }, use);
  try {
    await context.withTarget('interthought', { label: SINGLE }, (single) =>
      withNode('a', (a) =>
        withNode('b', async (b) => {
          const singleGroups: SubscriberGroup[] = [{ label: SINGLE, url: single.wsUrl, perSession: 2 * perNode }];
          const clusterGroups: SubscriberGroup[] = [
            { label: OWNER, url: a.wsUrl, perSession: perNode },
            { label: OTHER, url: b.wsUrl, perSession: perNode },
          ];
          for (const level of levels) {
            context.log(`cluster: single node at ${levelName(level)}`);
            runs.single.set(level, await runLevel(context, { owner: single, groups: singleGroups, servers: [single] }, level, `single node at ${levelName(level)}`));
            context.log(`cluster: sessions on node a, followed on a and b, ${levelName(level)}`);
            runs.cluster.set(level, await runLevel(context, { owner: a, groups: clusterGroups, servers: [a, b], redis }, level, `cluster at ${levelName(level)}`));
          }
          context.log(`cluster: takeover, ${scale.takeover.sessions} sessions of node a followed on b`);
          runs.takeover = await runTakeover(context, a, b);
        }),
      ),
    );
    runs.aofBytes = redis.aofBytes();
  } finally {
    await redis.stop();
  }
}

function levelFigures(level: Level, runs: ClusterRuns, perNode: number): Figure[] {
  const cluster = runs.cluster.get(level);
  const single = group(runs.single.get(level), SINGLE);
  const owner = group(cluster, OWNER);
  const other = group(cluster, OTHER);
  const name = levelName(level);
  const vsSingle = (read: (result: FollowGroupResult) => number, from: FollowGroupResult | undefined) => ({
    value: from ? read(from) : null,
    baseline: single ? read(single) : null,
  });
  if (level === 'max') {
    // Streamed deltas/s as one subscriber of every session receives them: the other node's group over its subscribers per session, the single node's over its (twice as many).
    const streamed = (result: FollowGroupResult | undefined, perSession: number) => (result ? result.deliveredPerSec / perSession : null);
    return [
      figure(`${name}: deltas/s streamed, as received on the ${OTHER}`, 'deltas/s', 'higher', { value: streamed(other, perNode), baseline: streamed(single, 2 * perNode) }, SINGLE),
      figure(`${name}: delivered on both nodes`, 'msgs/s', 'higher', { value: owner && other ? owner.deliveredPerSec + other.deliveredPerSec : null, baseline: single?.deliveredPerSec ?? null }, SINGLE),
      figure(`${name}: latency p99, ${OTHER}`, 'ms', 'lower', vsSingle((result) => result.latency.p99, other), SINGLE),
    ];
  }
  return [
    figure(`${name}: latency p50, ${OWNER}`, 'ms', 'lower', vsSingle((result) => result.latency.p50, owner), SINGLE),
    figure(`${name}: latency p99, ${OWNER}`, 'ms', 'lower', vsSingle((result) => result.latency.p99, owner), SINGLE),
    figure(`${name}: latency p50, ${OTHER}`, 'ms', 'lower', vsSingle((result) => result.latency.p50, other), SINGLE),
    figure(`${name}: latency p99, ${OTHER}`, 'ms', 'lower', vsSingle((result) => result.latency.p99, other), SINGLE),
    figure(`${name}: latency p99, ${OTHER} vs ${OWNER}`, 'ms', 'lower', { value: other?.latency.p99 ?? null, baseline: owner?.latency.p99 ?? null }, OWNER),
    figure(`${name}: CPU of nodes a + b + Redis`, '% of a core', 'lower', { value: cluster?.cpuPercent ?? null, baseline: runs.single.get(level)?.cpuPercent ?? null }, SINGLE),
  ];
}

function takeoverFigures(runs: ClusterRuns, leaseTtlMs: number): Figure[] {
  const measured = (runs.takeover?.takeoverMs ?? []).filter((ms): ms is number => ms !== null);
  const first = measured.length > 0 ? Math.min(...measured) : null;
  const last = measured.length > 0 && measured.length === runs.takeover?.takeoverMs.length ? Math.max(...measured) : null;
  return [
    figure('takeover: kill -9 → first session interrupted on the other node', 'ms', 'lower', { value: first, baseline: leaseTtlMs }, 'lease TTL'),
    figure('takeover: kill -9 → every session interrupted on the other node', 'ms', 'lower', { value: last, baseline: leaseTtlMs }, 'lease TTL'),
  ];
}

/** Lost, duplicated and unfinished over every subscriber of every run (single node included). */
function seqCheckTotals(runs: ClusterRuns) {
  const all = [...runs.single.values(), ...runs.cluster.values(), ...(runs.takeover ? [runs.takeover] : [])].flatMap((run) => run.result.groups);
  return seqTotals(all);
}

function targets(context: BenchContext, runs: ClusterRuns): TargetCheck[] {
  const scale = context.scale.cluster;
  const firstLevel = scale.offeredPerSec[0] ?? 0;
  const p99Ratio = ratio(group(runs.cluster.get(firstLevel), OTHER)?.latency.p99 ?? null, group(runs.single.get(firstLevel), SINGLE)?.latency.p99 ?? null);
  const totals = seqCheckTotals(runs);
  const faults = totals.lost + totals.duplicated + totals.unfinished;
  const takeovers = runs.takeover?.takeoverMs ?? [];
  const worstTakeover = takeovers.length > 0 && takeovers.every((ms) => ms !== null) ? Math.max(...(takeovers as number[])) : null;
  return [
    check('cluster-p99', `Cross-node p99 at ${perSecond(firstLevel)} vs single node`, p99Ratio, { max: 3 }, times),
    {
      id: 'cluster-seq',
      label: 'Lost or duplicated events, every subscriber of every run',
      goal: '0',
      measured: faults,
      shown: `${faults} (${totals.lost} lost, ${totals.duplicated} dup., ${totals.unfinished} unfinished)`,
      pass: faults === 0 && totals.events > 0,
    },
    check('cluster-takeover', `Takeover after kill -9, every session (lease TTL ${scale.leaseTtlMs.toLocaleString('en-US')} ms + 2 s)`, worstTakeover, { max: scale.leaseTtlMs + 2_000 }, millis),
  ];
}

function describeSamples(samples: readonly SeqFault[]): string {
  if (samples.length === 0) return '';
  const shown = samples.map((fault) => `after ${fault.after} came ${fault.first === fault.last ? fault.first : `${fault.first}–${fault.last}`}`);
  return ` (${shown.join('; ')})`;
}

function describeSlowEvents(events: Record<string, number> | undefined): string {
  if (events === undefined) return 'not read';
  const entries = Object.entries(events);
  return entries.length === 0 ? 'none' : entries.map(([event, ms]) => `${event} ${ms} ms`).join(', ');
}

function notes(context: BenchContext, runs: ClusterRuns, levels: Level[]): string[] {
  const scale = context.scale.cluster;
  const lines: string[] = [];
  for (const [where, byLevel] of [
    ['single node', runs.single],
    ['cluster', runs.cluster],
  ] as const) {
    for (const level of levels) {
      for (const result of byLevel.get(level)?.result.groups ?? []) {
        const closed = Object.entries(result.closedByServer).map(([code, n]) => `${n}× ${code}`);
        const parts = [
          ...(closed.length > 0 ? [`closed ${closed.join(', ')}`] : []),
          ...(result.coalescedFrames > 0 ? [`coalesced ${result.coalescedFrames} frames`] : []),
          ...(result.orderViolations > 0 ? [`${result.orderViolations} deltas out of index order`] : []),
          ...(result.seq.lost + result.seq.duplicated + result.seq.unfinished > 0
            ? [`${result.seq.lost} lost, ${result.seq.duplicated} duplicated, ${result.seq.unfinished} subscribers without the end${describeSamples(result.seq.samples)}`]
            : []),
        ];
        if (parts.length > 0) lines.push(`${where} at ${levelName(level)}, ${result.label}: ${parts.join('; ')}.`);
      }
    }
  }
  lines.push(`Redis' latency monitor (commands, AOF writes and fsyncs of 1 ms or more), the slowest of each in every cluster run: ${levels.map((level) => `${levelName(level)}: ${describeSlowEvents(runs.cluster.get(level)?.redisSlowEvents)}`).join('; ')}.`);
  const takeover = runs.takeover;
  if (takeover) {
    const shown = takeover.takeoverMs.map((ms) => (ms === null ? 'never' : `${Math.round(ms)}`)).join(', ');
    lines.push(`Takeover per session (ms from the kill to interrupted on node b): ${shown}; lease TTL ${scale.leaseTtlMs} ms, sweep every ${scale.sweepMs} ms.`);
    for (const session of takeover.missed) {
      lines.push(
        `Session ${session.sessionId} was never seen interrupted on node b (its subscriber's last seq ${session.lastSeqSeen}); node b's REST API says ${session.status} at seq ${session.seq ?? 'n/a'}.`,
      );
    }
    const seq = takeover.result.groups[0]?.seq;
    if (seq) lines.push(`Through the takeover, node b's subscribers got ${seq.events.toLocaleString('en-US')} events: ${seq.lost} lost, ${seq.duplicated} duplicated, ${seq.unfinished} without their interrupted${describeSamples(seq.samples)}.`);
  }
  const perNode = scale.subscribersPerNode;
  lines.push(
    `${scale.sessions} firehose sessions created on node a (so a owns them), ${perNode} subscriber${perNode === 1 ? '' : 's'} per session on a and ${perNode} on b, all from afterSeq 0; the single node (SQLite :memory:) gets the same sessions with all ${2 * perNode} subscribers on its one server. Offered rates count delivered frames over every subscriber, as in throughput.`,
    `One redis-server on a unix socket with appendonly yes, appendfsync always: every append is fsynced before it is published; the AOF held ${(runs.aofBytes / 1_048_576).toFixed(1)} MiB at the end (Redis rewrites it once it passes 64 MiB).`,
    `Seqs are checked per subscriber from 1 to the final status (cancelled, or interrupted after the kill): a gap is a lost event, a seq seen twice a duplicate, a subscriber that never saw the final status is unfinished; ${seqCheckTotals(runs).events.toLocaleString('en-US')} events checked in all.`,
  );
  return lines;
}

/**
 * Two cluster nodes sharing one durable Redis, against the single SQLite node in the same run:
 * emit → receive latency on the owner node and on the other node, saturation, takeover after
 * kill -9 of the owner, and seq contiguity for every subscriber of every run.
 */
export const clusterScenario: Scenario = {
  name: 'cluster',
  title: 'Cluster on Redis',
  async run(context): Promise<ScenarioReport> {
    const scale = context.scale.cluster;
    const levels: Level[] = [...scale.offeredPerSec, 'max'];
    const runs: ClusterRuns = { single: new Map(), cluster: new Map(), takeover: undefined, aofBytes: 0 };
    await measure(context, levels, runs);
    return {
      figures: [...levels.flatMap((level) => levelFigures(level, runs, scale.subscribersPerNode)), ...takeoverFigures(runs, scale.leaseTtlMs)],
      targets: targets(context, runs),
      notes: notes(context, runs, levels),
      details: {
        single: Object.fromEntries(runs.single),
        cluster: Object.fromEntries(runs.cluster),
        takeover: runs.takeover,
      },
    };
  },
};
