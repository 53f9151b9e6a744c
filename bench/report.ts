import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MachineInfo } from './harness/machine.js';
import { REPO_ROOT } from './harness/target-process.js';
import type { BenchMode } from './modes.js';
import { ratio, type Figure, type ScenarioName, type ScenarioReport, type TargetCheck } from './scenarios/scenario.js';

export interface ScenarioOutcome {
  name: ScenarioName;
  title: string;
  durationMs: number;
  report?: ScenarioReport;
  /** Why the scenario could not be measured. */
  error?: string;
}

/** One whole run, as written to bench/results/. */
export interface BenchRun {
  mode: BenchMode;
  startedAt: string;
  durationMs: number;
  machine: MachineInfo;
  /** 1-minute load average when the run ended. */
  loadAverageAtEnd: number;
  scenarios: ScenarioOutcome[];
}

/** Short names for the summary line, by target id. */
const SUMMARY_NAMES: Record<string, string> = {
  throughput: 'throughput',
  'p99-latency': 'p99',
  'idle-memory': 'idle RSS/conn',
  'correction-p99': 'correction p99',
  replay: 'replay',
  sqlite: 'SQLite',
  'stalled-readers': 'stalled p99',
  'browser-fps-rows': 'browser fps',
  'browser-gap-p99-rows': 'browser gap p99',
  'browser-fps-folded': 'browser fps (folded)',
  'browser-gap-p99-folded': 'browser gap p99 (folded)',
  'cluster-p99': 'cluster p99',
  'cluster-seq': 'cluster lost/dup',
  'cluster-takeover': 'takeover',
  'worker-throughput': 'worker throughput',
  'worker-p99': 'worker added p99',
};

function formatValue(value: number | null, unit: string): string {
  if (value === null || !Number.isFinite(value)) return 'n/a';
  if (unit.endsWith('/s') || Number.isInteger(value)) return Math.round(value).toLocaleString('en-US');
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return value.toFixed(digits);
}

function figureRow(scenario: string, row: Figure): string {
  const r = ratio(row.value, row.baseline);
  const baseline = row.baselineLabel === 'raw ws' ? formatValue(row.baseline, row.unit) : `${formatValue(row.baseline, row.unit)} (${row.baselineLabel})`;
  const shownRatio = r === null ? 'n/a' : `${r.toFixed(2)}×`;
  return `| ${scenario} | ${row.metric} (${row.unit}, ${row.better} is better) | ${formatValue(row.value, row.unit)} | ${baseline} | ${shownRatio} |`;
}

function targetRow(target: TargetCheck): string {
  return `| ${target.label} | ${target.goal} | ${target.shown} | ${target.pass ? 'pass' : 'miss'} |`;
}

export function allTargets(run: BenchRun): TargetCheck[] {
  return run.scenarios.flatMap((scenario) => scenario.report?.targets ?? []);
}

/** Warnings a reader needs before trusting any figure. */
function caveats(run: BenchRun): string[] {
  const lines: string[] = [];
  if (run.mode === 'smoke') lines.push('', 'Smoke run: every scenario at tiny scale. It shows the harness works; its figures and pass/miss mean nothing.');
  // Taken before the bench started anything, so it is other work competing for the CPUs.
  if (run.machine.loadAverage > run.machine.cpus / 2) {
    lines.push('', `Warning: the machine was busy before the run (load average ${run.machine.loadAverage} on ${run.machine.cpus} CPUs): the figures are noisy; compare ratios from a quiet machine.`);
  }
  return lines;
}

/** The markdown report: machine, figures with ratios, targets with pass/miss, notes. */
export function renderMarkdown(run: BenchRun): string {
  const { machine } = run;
  const lines = [
    `## Interthought benchmark (${run.mode}), ${run.startedAt}`,
    '',
    `Machine: ${machine.cpus} × ${machine.cpuModel}, ${(machine.memoryBytes / 1_073_741_824).toFixed(1)} GiB, ${machine.os}, Node ${machine.node}, load average ${machine.loadAverage} at start and ${run.loadAverageAtEnd} at the end. Run took ${(run.durationMs / 1_000).toFixed(1)} s.`,
    ...caveats(run),
    '',
    '| Scenario | Metric | Interthought | Baseline (raw ws) | Ratio |',
    '|---|---|---:|---:|---:|',
  ];
  for (const scenario of run.scenarios) {
    if (scenario.report) for (const row of scenario.report.figures) lines.push(figureRow(scenario.title, row));
    else lines.push(`| ${scenario.title} | not measured: ${scenario.error ?? 'unknown error'} | | | |`);
  }
  lines.push('', '| Target | Goal | Measured | Result |', '|---|---|---:|---|');
  for (const target of allTargets(run)) lines.push(targetRow(target));
  const notes = run.scenarios.flatMap((scenario) => (scenario.report?.notes ?? []).map((note) => `- ${scenario.title}: ${note}`));
  if (notes.length > 0) lines.push('', 'Notes:', ...notes);
  return lines.join('\n');
}

/** Write the run as JSON to bench/results/ (git-ignored); returns the file's path. */
export function writeResults(run: BenchRun): string {
  const directory = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `bench-${run.mode}-${run.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
  return file;
}

/** The last line of the output: every key ratio, and how many targets were met. */
export function summaryLine(run: BenchRun): string {
  const targets = allTargets(run);
  const parts = targets.map((target) => `${SUMMARY_NAMES[target.id] ?? target.id} ${target.shown} ${target.pass ? 'pass' : 'miss'}`);
  const failed = run.scenarios.filter((scenario) => scenario.error !== undefined).map((scenario) => scenario.name);
  const met = targets.filter((target) => target.pass).length;
  const tail = failed.length > 0 ? `; NOT MEASURED: ${failed.join(', ')}` : '';
  const measured = parts.length > 0 ? parts.join(' · ') : 'no target measured';
  return `Summary (${run.mode}): ${measured} — ${met}/${targets.length} targets met${tail}`;
}
