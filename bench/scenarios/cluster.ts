import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisProcess, type AppendFsync } from '../harness/redis-process.js';
import type { TargetProcess } from '../harness/target-process.js';
import type { FollowGroupResult, SubscriberGroup } from '../load/jobs.js';
import type { SeqFault } from '../load/seq-tracker.js';
import { runLevel, runTakeover, seqTotals, type Level, type LevelRun, type TakeoverRun } from './cluster-runs.js';
import { check, figure, millis, perSecond, ratio, times, type BenchContext, type Figure, type Scenario, type ScenarioReport, type TargetCheck } from './scenario.js';

const OWNER = 'owner node';
const OTHER = 'other node';
const SINGLE = 'single node';
const SINGLE_FILE = 'single node, SQLite file';

/**
 * The Redis each part runs against. Latency levels: AOF fsynced once a second, so the tail shows
 * the cluster's path (append, publish, fan-out) rather than the disk's fsync, which the in-memory
 * single node never pays. Saturation and takeover: fsync before every reply, as production runs.
 */
const LATENCY_FSYNC: AppendFsync = 'everysec';
const DURABLE_FSYNC: AppendFsync = 'always';
const fsyncOf = (level: Level): AppendFsync => (level === 'max' ? DURABLE_FSYNC : LATENCY_FSYNC);

const levelName = (level: Level) => (level === 'max' ? 'saturation' : `${perSecond(level)} offered`);
/** A level's name with the Redis it ran against, for figures and notes. */
const levelWithRedis = (level: Level) => `${levelName(level)} (Redis appendfsync ${fsyncOf(level)})`;

/** Every run of the scenario, by level: the single-node references and the cluster. */
interface ClusterRuns {
  /** Each level's rounds: `rounds` at the first level, one at the others. */
  single: Map<Level, LevelRun[]>;
  /** The single node on a durable SQLite file (synchronous FULL), at the first offered level. */
  singleFile: LevelRun | undefined;
  cluster: Map<Level, LevelRun[]>;
  /** The unmeasured warm-up rounds (their seqs are checked all the same). */
  warmUp: LevelRun[];
  takeover: TakeoverRun | undefined;
  aofBytes: Partial<Record<AppendFsync, number>>;
  /** Bytes of the single node's SQLite file and its WAL at the end, 0 when it wrote none. */
  sqliteBytes: number;
}

function group(run: LevelRun | undefined, label: string): FollowGroupResult | undefined {
  return run?.result.groups.find((candidate) => candidate.label === label);
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The median over a level's rounds of what `read` takes from the group `label` (the one round's value when there is one). */
function medianOver(rounds: readonly LevelRun[] | undefined, label: string, read: (result: FollowGroupResult) => number): number | null {
  return median((rounds ?? []).flatMap((run) => (group(run, label) ? [read(group(run, label)!)] : [])));
}

function medianCpu(rounds: readonly LevelRun[] | undefined): number | null {
  return median((rounds ?? []).map((run) => run.cpuPercent));
}

const p99 = (result: FollowGroupResult) => result.latency.p99;

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Nodes a and b on a Redis of their own with the given AOF fsync; returns the AOF's bytes at the end. */
async function onCluster(context: BenchContext, appendfsync: AppendFsync, use: (cluster: { redis: RedisProcess; a: TargetProcess; b: TargetProcess }) => Promise<void>): Promise<number> {
  const scale = context.scale.cluster;
  const redis = await RedisProcess.start(appendfsync);
  context.log(`cluster: redis-server pid ${redis.pid} on ${redis.socket} (appendonly yes, appendfsync ${appendfsync})`);
  const nodeEnv = (nodeId: string) => ({
    INTERTHOUGHT_REDIS_URL: redis.url,
    INTERTHOUGHT_NODE_ID: nodeId,
    INTERTHOUGHT_LEASE_TTL_MS: String(scale.leaseTtlMs),
    INTERTHOUGHT_SWEEP_MS: String(scale.sweepMs),
  });
  const withNode = (nodeId: string, inner: (node: TargetProcess) => Promise<void>) =>
    context.withTarget('interthought', { label: `node ${nodeId}`, env: nodeEnv(nodeId), exclusive: true }, inner);
  try {
    await withNode('a', (a) => withNode('b', (b) => use({ redis, a, b })));
    return redis.aofBytes();
  } finally {
    await redis.stop();
  }
}

function sqliteBytes(file: string): number {
  return [file, `${file}-wal`].reduce((sum, path) => sum + (existsSync(path) ? statSync(path).size : 0), 0);
}

/**
 * Two parts, each with its servers all up at once, so each level runs on the single node and then
 * on the cluster, and other work on the machine weighs on both alike. Latency levels: the single
 * node in memory and on a SQLite file, the cluster on a Redis fsyncing every second; the first
 * level in `rounds` rounds, the single node and the cluster in turn (which goes first alternates),
 * after `warmUpRounds` unmeasured rounds of each. Saturation and the owner's kill -9: the single node
 * in memory, the cluster on a Redis fsyncing every write.
 */
async function measure(context: BenchContext, levels: Level[], runs: ClusterRuns): Promise<void> {
  const scale = context.scale.cluster;
  const perNode = scale.subscribersPerNode;
  const singleGroups = (url: string, label = SINGLE): SubscriberGroup[] => [{ label, url, perSession: 2 * perNode }];
  const clusterGroups = (a: TargetProcess, b: TargetProcess): SubscriberGroup[] => [
    { label: OWNER, url: a.wsUrl, perSession: perNode },
    { label: OTHER, url: b.wsUrl, perSession: perNode },
  ];
  const latencyLevels = levels.filter((level) => level !== 'max');
  const directory = mkdtempSync(join(tmpdir(), 'interthought-bench-cluster-'));
  const file = join(directory, 'events.db');
  try {
    await context.withTarget('interthought', { label: SINGLE }, (single) =>
      context.withTarget('interthought', { label: SINGLE_FILE, env: { INTERTHOUGHT_DB: file }, exclusive: true }, async (singleFile) => {
        runs.aofBytes[LATENCY_FSYNC] = await onCluster(context, LATENCY_FSYNC, async ({ redis, a, b }) => {
          const singleRun = (level: Level, what: string) => runLevel(context, { owner: single, groups: singleGroups(single.wsUrl), servers: [single] }, level, `single node at ${what}`);
          const clusterRun = (level: Level, what: string) => runLevel(context, { owner: a, groups: clusterGroups(a, b), servers: [a, b], redis }, level, `cluster at ${what}`);
          const first = latencyLevels[0];
          for (let round = 1; first !== undefined && round <= scale.warmUpRounds; round++) {
            context.log(`cluster: warm-up round ${round} of ${scale.warmUpRounds} at ${levelName(first)}, single node then cluster (not measured)`);
            runs.warmUp.push(await singleRun(first, `${levelName(first)} (warm-up)`), await clusterRun(first, `${levelName(first)} (warm-up)`));
          }
          for (const level of latencyLevels) {
            const rounds = level === first ? Math.max(1, scale.rounds) : 1;
            for (let round = 1; round <= rounds; round++) {
              const what = rounds > 1 ? `${levelName(level)}, round ${round} of ${rounds}` : levelName(level);
              const singleRound = async () => {
                context.log(`cluster: single node at ${what}`);
                push(runs.single, level, await singleRun(level, what));
              };
              const clusterRound = async () => {
                context.log(`cluster: sessions on node a, followed on a and b, ${levelWithRedis(level)}${rounds > 1 ? `, round ${round} of ${rounds}` : ''}`);
                push(runs.cluster, level, await clusterRun(level, what));
              };
              // Which goes first alternates, so a trend over the run (a warming JIT, a growing AOF) weighs on both alike.
              for (const part of round % 2 === 1 ? [singleRound, clusterRound] : [clusterRound, singleRound]) await part();
              if (level === first && round === 1) {
                context.log(`cluster: single node on a SQLite file at ${levelName(level)}`);
                runs.singleFile = await runLevel(context, { owner: singleFile, groups: singleGroups(singleFile.wsUrl, SINGLE_FILE), servers: [singleFile] }, level, `single node (SQLite file) at ${levelName(level)}`);
              }
            }
          }
        });
        runs.sqliteBytes = sqliteBytes(file);
      }),
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  if (!levels.includes('max')) return;
  await context.withTarget('interthought', { label: SINGLE }, async (single) => {
    runs.aofBytes[DURABLE_FSYNC] = await onCluster(context, DURABLE_FSYNC, async ({ redis, a, b }) => {
      context.log('cluster: single node at saturation');
      push(runs.single, 'max', await runLevel(context, { owner: single, groups: singleGroups(single.wsUrl), servers: [single] }, 'max', 'single node at saturation'));
      context.log(`cluster: sessions on node a, followed on a and b, ${levelWithRedis('max')}`);
      push(runs.cluster, 'max', await runLevel(context, { owner: a, groups: clusterGroups(a, b), servers: [a, b], redis }, 'max', 'cluster at saturation'));
      context.log(`cluster: takeover, ${context.scale.cluster.takeover.sessions} sessions of node a followed on b (Redis appendfsync ${DURABLE_FSYNC})`);
      runs.takeover = await runTakeover(context, a, b);
    });
  });
}

/** A level's figures: the median over its rounds of each (one round but at the first level). */
function levelFigures(level: Level, runs: ClusterRuns, perNode: number): Figure[] {
  const cluster = runs.cluster.get(level);
  const single = runs.single.get(level);
  const name = levelWithRedis(level);
  const vsSingle = (read: (result: FollowGroupResult) => number, label: string) => ({ value: medianOver(cluster, label, read), baseline: medianOver(single, SINGLE, read) });
  if (level === 'max') {
    // Streamed deltas/s as one subscriber of every session receives them: the other node's group over its subscribers per session, the single node's over its (twice as many).
    const delivered = (result: FollowGroupResult) => result.deliveredPerSec;
    const streamed = (value: number | null, perSession: number) => (value === null ? null : value / perSession);
    const owner = medianOver(cluster, OWNER, delivered);
    const other = medianOver(cluster, OTHER, delivered);
    const singleDelivered = medianOver(single, SINGLE, delivered);
    return [
      figure(`${name}: deltas/s streamed, as received on the ${OTHER}`, 'deltas/s', 'higher', { value: streamed(other, perNode), baseline: streamed(singleDelivered, 2 * perNode) }, SINGLE),
      figure(`${name}: delivered on both nodes`, 'msgs/s', 'higher', { value: owner !== null && other !== null ? owner + other : null, baseline: singleDelivered }, SINGLE),
      figure(`${name}: latency p99, ${OTHER}`, 'ms', 'lower', vsSingle(p99, OTHER), SINGLE),
    ];
  }
  return [
    figure(`${name}: latency p50, ${OWNER}`, 'ms', 'lower', vsSingle((result) => result.latency.p50, OWNER), SINGLE),
    figure(`${name}: latency p99, ${OWNER}`, 'ms', 'lower', vsSingle(p99, OWNER), SINGLE),
    figure(`${name}: latency p50, ${OTHER}`, 'ms', 'lower', vsSingle((result) => result.latency.p50, OTHER), SINGLE),
    figure(`${name}: latency p99, ${OTHER}`, 'ms', 'lower', vsSingle(p99, OTHER), SINGLE),
    figure(`${name}: latency p99, ${OTHER} vs ${OWNER}`, 'ms', 'lower', { value: medianOver(cluster, OTHER, p99), baseline: medianOver(cluster, OWNER, p99) }, OWNER),
    figure(`${name}: CPU of nodes a + b + Redis`, '% of a core', 'lower', { value: medianCpu(cluster), baseline: medianCpu(single) }, SINGLE),
    ...(level === durableSingleLevel(runs) ? singleFileFigures(runs) : []),
  ];
}

/** The level the durable single node ran at (the first offered one). */
function durableSingleLevel(runs: ClusterRuns): Level | undefined {
  return runs.single.keys().next().value;
}

/** The durable single node (one round) against the in-memory one, and the cluster's other node against it (medians of the rounds). */
function singleFileFigures(runs: ClusterRuns): Figure[] {
  const level = durableSingleLevel(runs);
  if (level === undefined) return [];
  const file = group(runs.singleFile, SINGLE_FILE)?.latency.p99 ?? null;
  return [
    figure(`${levelName(level)}: latency p99, ${SINGLE_FILE} (synchronous FULL)`, 'ms', 'lower', { value: file, baseline: medianOver(runs.single.get(level), SINGLE, p99) }, `${SINGLE} (:memory:)`),
    figure(`${levelWithRedis(level)}: latency p99, ${OTHER} vs the ${SINGLE_FILE}`, 'ms', 'lower', { value: medianOver(runs.cluster.get(level), OTHER, p99), baseline: file }, SINGLE_FILE),
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
  const all = [...[...runs.single.values()].flat(), ...runs.warmUp, ...(runs.singleFile ? [runs.singleFile] : []), ...[...runs.cluster.values()].flat(), ...(runs.takeover ? [runs.takeover] : [])].flatMap((run) => run.result.groups);
  return seqTotals(all);
}

function targets(context: BenchContext, runs: ClusterRuns): TargetCheck[] {
  const scale = context.scale.cluster;
  const firstLevel = scale.offeredPerSec[0] ?? 0;
  const p99Ratio = ratio(medianOver(runs.cluster.get(firstLevel), OTHER, p99), medianOver(runs.single.get(firstLevel), SINGLE, p99));
  const rounds = runs.cluster.get(firstLevel)?.length ?? 0;
  const totals = seqCheckTotals(runs);
  const faults = totals.lost + totals.duplicated + totals.unfinished;
  const takeovers = runs.takeover?.takeoverMs ?? [];
  const worstTakeover = takeovers.length > 0 && takeovers.every((ms) => ms !== null) ? Math.max(...(takeovers as number[])) : null;
  return [
    check('cluster-p99', `Cross-node p99 at ${perSecond(firstLevel)} (Redis appendfsync ${LATENCY_FSYNC}${rounds > 1 ? `, median of ${rounds} rounds` : ''}) vs single node (:memory:)`, p99Ratio, { max: 3 }, times),
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

const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${(bytes / 1_048_576).toFixed(1)} MiB`);

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

/** Redis' slowest events over a level's rounds: the slowest of each. */
function slowestOf(rounds: readonly LevelRun[] | undefined): Record<string, number> | undefined {
  const read = (rounds ?? []).filter((run) => run.redisSlowEvents !== undefined);
  if (read.length === 0) return undefined;
  const slowest: Record<string, number> = {};
  for (const run of read) for (const [event, ms] of Object.entries(run.redisSlowEvents!)) slowest[event] = Math.max(slowest[event] ?? 0, ms);
  return slowest;
}

/** Every round of the first level, so the median the figures show can be checked against the spread. */
function roundNotes(runs: ClusterRuns, level: Level | undefined): string[] {
  const single = level === undefined ? [] : (runs.single.get(level) ?? []);
  const cluster = level === undefined ? [] : (runs.cluster.get(level) ?? []);
  if (level === undefined || cluster.length < 2) return [];
  const ms = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(2));
  const shown = cluster.map((run, index) => {
    const reference = group(single[index], SINGLE)?.latency.p99;
    const other = group(run, OTHER)?.latency.p99;
    const owner = group(run, OWNER)?.latency.p99;
    const roundRatio = reference && other !== undefined ? ` (${(other / reference).toFixed(2)}×)` : '';
    return `${index + 1}: ${ms(reference)} / ${ms(other)}${roundRatio} / ${ms(owner)}`;
  });
  return [
    `${levelWithRedis(level)}, each round's latency p99 in ms, single node / ${OTHER} (its ratio) / ${OWNER}: ${shown.join('; ')}. The figures and the target take the median round of each; the single node and the cluster took turns going first, after ${runs.warmUp.length / 2} unmeasured warm-up round${runs.warmUp.length === 2 ? '' : 's'} of each.`,
  ];
}

function notes(context: BenchContext, runs: ClusterRuns, levels: Level[]): string[] {
  const scale = context.scale.cluster;
  const lines: string[] = [];
  const fileLevel = durableSingleLevel(runs);
  const singleFile = new Map<Level, LevelRun[]>(runs.singleFile && fileLevel !== undefined ? [[fileLevel, [runs.singleFile]]] : []);
  for (const [where, byLevel] of [
    ['single node', runs.single],
    ['single node on a SQLite file', singleFile],
    ['cluster', runs.cluster],
  ] as const) {
    for (const level of levels) {
      for (const result of (byLevel.get(level) ?? []).flatMap((run) => run.result.groups)) {
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
  lines.push(...roundNotes(runs, levels[0]));
  lines.push(`Redis' latency monitor (commands, AOF writes and fsyncs of 1 ms or more), the slowest of each in every cluster run: ${levels.map((level) => `${levelWithRedis(level)}: ${describeSlowEvents(slowestOf(runs.cluster.get(level)))}`).join('; ')}.`);
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
    `The latency levels (${levels.filter((level) => level !== 'max').map(levelName).join(', ')}) run against a redis-server with appendonly yes, appendfsync ${LATENCY_FSYNC} (fsynced once a second by a background thread, so no write waits for the disk; a crash of the machine loses up to a second); its AOF held ${mib(runs.aofBytes[LATENCY_FSYNC])} at the end. Saturation and the takeover run against another redis-server, with fresh nodes a and b, with appendfsync ${DURABLE_FSYNC} (every append fsynced before it is published, as production runs); its AOF held ${mib(runs.aofBytes[DURABLE_FSYNC])} (Redis rewrites an AOF once it passes 64 MiB). Both on a unix socket.`,
    `The durable single node (INTERTHOUGHT_DB on a temp file, synchronous FULL, WAL) ran at ${fileLevel === undefined ? 'n/a' : levelName(fileLevel)} only, between the in-memory single node and the cluster; its file and WAL held ${mib(runs.sqliteBytes)} at the end${runs.sqliteBytes === 0 ? ' (it wrote none: the row measures no file)' : ''}.`,
    `Seqs are checked per subscriber from 1 to the final status (cancelled, or interrupted after the kill): a gap is a lost event, a seq seen twice a duplicate, a subscriber that never saw the final status is unfinished; ${seqCheckTotals(runs).events.toLocaleString('en-US')} events checked in all.`,
  );
  return lines;
}

/**
 * Two cluster nodes sharing one Redis, against the single SQLite node in the same run: emit →
 * receive latency on the owner node and on the other node (Redis fsyncing every second; the
 * single node in memory and on a durable file), saturation and takeover after kill -9 of the owner
 * (Redis fsyncing every write), and seq contiguity for every subscriber of every run.
 */
export const clusterScenario: Scenario = {
  name: 'cluster',
  title: 'Cluster on Redis',
  async run(context): Promise<ScenarioReport> {
    const scale = context.scale.cluster;
    const levels: Level[] = [...scale.offeredPerSec, 'max'];
    const runs: ClusterRuns = { single: new Map(), singleFile: undefined, cluster: new Map(), warmUp: [], takeover: undefined, aofBytes: {}, sqliteBytes: 0 };
    await measure(context, levels, runs);
    return {
      figures: [...levels.flatMap((level) => levelFigures(level, runs, scale.subscribersPerNode)), ...takeoverFigures(runs, scale.leaseTtlMs)],
      targets: targets(context, runs),
      notes: notes(context, runs, levels),
      details: {
        single: Object.fromEntries(runs.single),
        singleFile: runs.singleFile,
        redisAppendfsync: Object.fromEntries(levels.map((level) => [String(level), fsyncOf(level)])),
        cluster: Object.fromEntries(runs.cluster),
        takeover: runs.takeover,
      },
    };
  },
};
