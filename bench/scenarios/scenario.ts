import { formatFirehoseTask } from '../../apps/server/src/agents/firehose/firehose-params.js';
import type { LoadHooks } from '../harness/load-runner.js';
import type { TargetKind, TargetProcess } from '../harness/target-process.js';
import type { LoadJob, LoadResult, StreamResult, StreamSpec } from '../load/jobs.js';
import type { BenchMode, Scale, StreamScale } from '../modes.js';

export const SCENARIO_NAMES = ['throughput', 'idle', 'correction', 'replay', 'store', 'slow-consumers', 'browser-chain', 'cluster', 'worker'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** One measured quantity, for Interthought and for what it is compared with. */
export interface Figure {
  metric: string;
  unit: string;
  value: number | null;
  baseline: number | null;
  /** What `baseline` is; the raw ws server unless said otherwise. */
  baselineLabel: string;
  /** Which direction is good, so the ratio reads the same way for every row (ratio = value / baseline). */
  better: 'higher' | 'lower';
}

/** One target of the issue, checked against this run's figures. */
export interface TargetCheck {
  id: string;
  label: string;
  goal: string;
  measured: number | null;
  /** How `measured` reads, e.g. "0.93×" or "4.2 ms". */
  shown: string;
  pass: boolean;
}

export interface ScenarioReport {
  figures: Figure[];
  targets: TargetCheck[];
  /** Things a reader must know to trust the figures (a fallback, a capped size …). */
  notes: string[];
  /** Every raw result, for the JSON file. */
  details: Record<string, unknown>;
}

export interface StartOptions {
  label?: string;
  env?: Record<string, string>;
  /**
   * Never share this server with another scenario, even in smoke mode: it is stopped when `use`
   * is done (the scenario kills it, or it depends on something the scenario stops, like Redis).
   */
  exclusive?: boolean;
}

export interface BenchContext {
  mode: BenchMode;
  scale: Scale;
  /** Progress, to stderr (stdout is the report's). */
  log(line: string): void;
  /** `--trace`: where a scenario that drives a browser writes its trace and page CPU profile. */
  traceDir?: string;
  /**
   * Run `use` against a server started for it and stopped after it (even when it fails); in
   * smoke mode one server per kind and environment is shared by every scenario (unless `exclusive`).
   */
  withTarget<T>(kind: TargetKind, options: StartOptions, use: (target: TargetProcess) => Promise<T>): Promise<T>;
  runLoad(job: LoadJob, timeoutMs: number, hooks?: LoadHooks): Promise<LoadResult>;
}

export interface Scenario {
  name: ScenarioName;
  title: string;
  run(context: BenchContext): Promise<ScenarioReport>;
}

/** The harness itself is broken (no deltas, deltas out of order, refused requests): fail the run loudly. */
export class BenchFailure extends Error {
  override readonly name = 'BenchFailure';
}

/** Both servers, in the order every scenario measures them. */
export const TARGET_KINDS: readonly TargetKind[] = ['interthought', 'raw-ws'];

/**
 * Run `use` with both servers up at once, so a scenario can alternate between them and load
 * from other work on the machine spreads over both instead of skewing one.
 */
export function withBothTargets<T>(context: BenchContext, use: (targets: Record<TargetKind, TargetProcess>) => Promise<T>): Promise<T> {
  return context.withTarget('interthought', {}, (interthought) => context.withTarget('raw-ws', {}, (raw) => use({ interthought, 'raw-ws': raw })));
}

/** value ÷ baseline; none when either is a negative growth (memory freed by a GC) or the baseline is 0. */
export function ratio(value: number | null, baseline: number | null): number | null {
  if (value === null || baseline === null || value < 0 || baseline <= 0) return null;
  return value / baseline;
}

export function figure(metric: string, unit: string, better: Figure['better'], values: { value: number | null; baseline: number | null }, baselineLabel = 'raw ws'): Figure {
  return { metric, unit, better, value: values.value, baseline: values.baseline, baselineLabel };
}

/** A target: `measured` against `limit`, passing when at least (`min`) or at most (`max`) it. */
export function check(id: string, label: string, measured: number | null, rule: { min?: number; max?: number }, format: (value: number) => string): TargetCheck {
  const goal = rule.min !== undefined ? `≥ ${format(rule.min)}` : `≤ ${format(rule.max ?? 0)}`;
  const pass = measured !== null && (rule.min === undefined || measured >= rule.min) && (rule.max === undefined || measured <= rule.max);
  return { id, label, goal, measured, shown: measured === null ? 'n/a' : format(measured), pass };
}

export const times = (value: number) => `${value.toFixed(2)}×`;
export const millis = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const perSecond = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;

/** The spec of S sessions × C subscribers delivering `offeredPerSec` deltas to them in all (or `max`), plus watchers. */
export function streamSpec(
  context: BenchContext,
  url: string,
  scale: StreamScale,
  offeredPerSec: number | 'max',
  watchers: { count: number; stall: boolean } = { count: 0, stall: false },
): StreamSpec {
  const { deltaSize, startDelayMs } = context.scale;
  // Long enough to outlast setup and the window; the sessions are cancelled when it closes.
  const streamMs = 30_000 + scale.warmupMs + scale.measureMs;
  const rate = offeredPerSec === 'max' ? Infinity : Math.max(1, Math.round(offeredPerSec / (scale.sessions * scale.subscribers)));
  const task =
    rate === Infinity
      ? formatFirehoseTask({ rate, count: 50_000_000, size: deltaSize, delayMs: startDelayMs })
      : formatFirehoseTask({ rate, durationMs: streamMs, size: deltaSize, delayMs: startDelayMs });
  return {
    url,
    sessions: scale.sessions,
    subscribersPerSession: scale.subscribers,
    watchers: watchers.count,
    watchersStall: watchers.stall,
    task,
    warmupMs: scale.warmupMs,
    measureMs: scale.measureMs,
  };
}

/** Enough time for a stream job to set up, measure and close, however slow the machine. */
export function streamTimeoutMs(spec: StreamSpec): number {
  return 90_000 + spec.warmupMs + spec.measureMs;
}

export function expectKind<K extends LoadResult['kind']>(result: LoadResult, kind: K): Extract<LoadResult, { kind: K }> {
  if (result.kind !== kind) throw new BenchFailure(`Expected a ${kind} result, got ${result.kind}.`);
  return result as Extract<LoadResult, { kind: K }>;
}

/** A stream run the figures can trust: deltas arrived, in order, and nothing was refused. */
export function assertSoundStream(result: StreamResult, what: string): void {
  if (result.deltasMeasured === 0) throw new BenchFailure(`${what}: no delta arrived inside the measurement window.`);
  if (result.orderViolations > 0) throw new BenchFailure(`${what}: ${result.orderViolations} deltas arrived out of order.`);
  const errors = Object.entries(result.errors);
  if (errors.length > 0) throw new BenchFailure(`${what}: the server refused requests: ${errors.map(([code, n]) => `${code}×${n}`).join(', ')}.`);
}

function countOf(closes: Record<string, number>): number {
  return Object.values(closes).reduce((sum, n) => sum + n, 0);
}

function describeCloses(closes: Record<string, number>): string {
  return Object.entries(closes)
    .map(([code, n]) => `${n}× code ${code}${code === '4008' ? ' (slow consumer)' : ''}`)
    .join(', ');
}

/**
 * What the server did to keep up that a reader of the figures should know: subscribers it closed
 * and frames it coalesced. Undefined when it simply delivered every delta one by one.
 */
export function describeDisruption(result: StreamResult, what: string): string | undefined {
  const parts: string[] = [];
  if (countOf(result.closedByServer) > 0) parts.push(`closed ${countOf(result.closedByServer)} healthy subscribers (${describeCloses(result.closedByServer)})`);
  if (countOf(result.watchersClosedByServer) > 0) parts.push(`closed ${countOf(result.watchersClosedByServer)} readers (${describeCloses(result.watchersClosedByServer)})`);
  if (result.coalescedFrames > 0) parts.push(`coalesced deltas into ${result.coalescedFrames} frames for subscribers behind`);
  return parts.length === 0 ? undefined : `${what}: the server ${parts.join('; ')}.`;
}

/** How many connections of `closes` the server closed. */
export function closedCount(closes: Record<string, number>): number {
  return countOf(closes);
}

/** Run a stream job and check it; `hooks.onHolding` runs after the window, connections still open (with `spec.holdAtEnd`). */
export async function measureStream(context: BenchContext, spec: StreamSpec, what: string, hooks?: LoadHooks): Promise<StreamResult> {
  const result = expectKind(await context.runLoad({ kind: 'stream', stream: spec }, streamTimeoutMs(spec), hooks), 'stream');
  assertSoundStream(result, what);
  return result;
}
