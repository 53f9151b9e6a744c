import { formatFirehoseTask } from '../../apps/server/src/agents/firehose/firehose-params.js';
import { nowMicros } from '../../apps/server/src/agents/firehose/firehose-text.js';
import type { RedisProcess } from '../harness/redis-process.js';
import type { TargetProcess } from '../harness/target-process.js';
import type { FollowGroupResult, FollowJob, FollowResult, SubscriberGroup } from '../load/jobs.js';
import type { SeqCheck } from '../load/seq-tracker.js';
import type { ClusterScale } from '../modes.js';
import { BenchFailure, expectKind, type BenchContext } from './scenario.js';

/** An offered rate (delivered frames per second over every subscriber), or saturation. */
export type Level = number | 'max';

/** A follow run and what the servers spent on it. */
export interface LevelRun {
  result: FollowResult;
  /** CPU time of every server process of the run (both nodes and Redis, or the single node) over its wall time, in % of one core. */
  cpuPercent: number;
  /** Redis' latency monitor over the run: the slowest of each event of 1 ms or more (`aof-fsync-always` …), in ms. */
  redisSlowEvents?: Record<string, number>;
}

/** What the owner's kill -9 showed on the other node. */
export interface TakeoverRun {
  result: FollowResult;
  /** When the harness sent SIGKILL (µs on the machine-wide monotonic clock the load generator reads too). */
  killedAt: number;
  /** Per session: kill → the first `session.status interrupted` a subscriber on the other node saw (ms), or null. */
  takeoverMs: (number | null)[];
  /** Sessions nobody saw interrupted: what the other node's REST API says of them afterwards. */
  missed: { sessionId: string; lastSeqSeen: number; status: string; seq: number | null }[];
}

/** Long enough to outlast setup and the window; every session is cancelled when it closes. */
function streamMs(scale: ClusterScale): number {
  return 30_000 + scale.warmupMs + scale.measureMs;
}

/** Subscribers per session over every group: each session's deltas reach all of them. */
function subscribersPerSession(groups: SubscriberGroup[]): number {
  return groups.reduce((sum, group) => sum + group.perSession, 0);
}

export function taskFor(context: BenchContext, sessions: number, groups: SubscriberGroup[], level: Level, durationMs: number): string {
  const { deltaSize, startDelayMs } = context.scale;
  if (level === 'max') return formatFirehoseTask({ rate: Infinity, count: 50_000_000, size: deltaSize, delayMs: startDelayMs });
  const rate = Math.max(1, Math.round(level / (sessions * subscribersPerSession(groups))));
  return formatFirehoseTask({ rate, durationMs, size: deltaSize, delayMs: startDelayMs });
}

/** Enough time for a follow job to set up, measure and see every session end, however slow the machine. */
function followTimeoutMs(job: FollowJob): number {
  return 90_000 + job.warmupMs + job.measureMs + job.endTimeoutMs;
}

/** The harness is broken when a group got nothing or the servers refused requests; lost events are findings, not failures. */
function assertMeasured(result: FollowResult, what: string): void {
  for (const group of result.groups) {
    if (group.deltasMeasured === 0) throw new BenchFailure(`${what}: no delta reached the ${group.label} subscribers inside the measurement window.`);
    const errors = Object.entries(group.errors);
    if (errors.length > 0) throw new BenchFailure(`${what}: the server refused ${group.label} requests: ${errors.map(([code, n]) => `${code}×${n}`).join(', ')}.`);
  }
}

async function cpuMicros(servers: TargetProcess[], redis: RedisProcess | undefined): Promise<number> {
  const probes = await Promise.all(servers.map((server) => server.probe(false)));
  const nodes = probes.reduce((sum, probe) => sum + probe.cpu.user + probe.cpu.system, 0);
  return nodes + (redis?.cpuMicros() ?? 0);
}

/** One follow run at `level`: sessions created on `owner`, followed by `groups`, ended by a cancel. */
export async function runLevel(
  context: BenchContext,
  run: { owner: TargetProcess; groups: SubscriberGroup[]; servers: TargetProcess[]; redis?: RedisProcess },
  level: Level,
  what: string,
): Promise<LevelRun> {
  const scale = context.scale.cluster;
  const job: FollowJob = {
    kind: 'follow',
    ownerUrl: run.owner.wsUrl,
    groups: run.groups,
    sessions: scale.sessions,
    task: taskFor(context, scale.sessions, run.groups, level, streamMs(scale)),
    warmupMs: scale.warmupMs,
    measureMs: scale.measureMs,
    end: 'cancel',
    endTimeoutMs: 30_000,
  };
  await run.redis?.resetLatency();
  const before = await cpuMicros(run.servers, run.redis);
  const started = performance.now();
  const result = expectKind(await context.runLoad(job, followTimeoutMs(job)), 'follow');
  const cpu = (await cpuMicros(run.servers, run.redis)) - before;
  const cpuPercent = (cpu / 1_000 / (performance.now() - started)) * 100;
  assertMeasured(result, what);
  return run.redis === undefined ? { result, cpuPercent } : { result, cpuPercent, redisSlowEvents: await run.redis.slowEvents() };
}

/**
 * Sessions created on `owner` stream to subscribers on `other`; once the window closed, the owner
 * is killed with SIGKILL and the subscribers wait for each session's `interrupted`, which the
 * other node appends after taking the session over (lease expired, then its sweep).
 */
export async function runTakeover(context: BenchContext, owner: TargetProcess, other: TargetProcess): Promise<TakeoverRun> {
  const scale = context.scale.cluster;
  const groups: SubscriberGroup[] = [{ label: 'other node', url: other.wsUrl, perSession: scale.subscribersPerNode }];
  const { sessions, offeredPerSec } = scale.takeover;
  const job: FollowJob = {
    kind: 'follow',
    ownerUrl: owner.wsUrl,
    groups,
    sessions,
    task: taskFor(context, sessions, groups, offeredPerSec, 30_000 + scale.warmupMs + scale.takeover.streamMs + scale.leaseTtlMs),
    warmupMs: scale.warmupMs,
    measureMs: scale.takeover.streamMs,
    end: 'owner-killed',
    endTimeoutMs: scale.leaseTtlMs + scale.sweepMs + 15_000,
  };
  let killedAt = 0;
  const result = expectKind(
    await context.runLoad(job, followTimeoutMs(job), {
      onHolding: async () => {
        context.log(`cluster: kill -9 of ${owner.label} (pid ${owner.pid})`);
        killedAt = nowMicros();
        await owner.kill();
      },
    }),
    'follow',
  );
  assertMeasured(result, 'takeover stream');
  const seen = result.groups[0]?.endSeenAt ?? [];
  const takeoverMs = seen.map((at) => (at === null || killedAt === 0 ? null : (at - killedAt) / 1_000));
  const missed = await Promise.all(
    result.sessionIds.flatMap((sessionId, index) => (takeoverMs[index] === null ? [describeSession(other, sessionId, result.groups[0]?.lastSeqs[index] ?? 0)] : [])),
  );
  return { result, killedAt, takeoverMs, missed };
}

/** A session as the node's REST API shows it (its snapshot's status and seq). */
async function describeSession(node: TargetProcess, sessionId: string, lastSeqSeen: number): Promise<TakeoverRun['missed'][number]> {
  try {
    const response = await fetch(`${node.httpUrl}/api/sessions/${encodeURIComponent(sessionId)}`);
    const body = (await response.json()) as { session?: { status?: string }; seq?: number };
    return { sessionId, lastSeqSeen, status: body.session?.status ?? `HTTP ${response.status}`, seq: body.seq ?? null };
  } catch (error) {
    return { sessionId, lastSeqSeen, status: `unreadable (${error instanceof Error ? error.message : String(error)})`, seq: null };
  }
}

/** Every group's seq check of a run, summed. */
export function seqTotals(groups: readonly FollowGroupResult[]): Omit<SeqCheck, 'samples'> {
  const totals = { events: 0, lost: 0, duplicated: 0, unfinished: 0 };
  for (const { seq } of groups) {
    totals.events += seq.events;
    totals.lost += seq.lost;
    totals.duplicated += seq.duplicated;
    totals.unfinished += seq.unfinished;
  }
  return totals;
}
