/**
 * What tracing costs a run of the demo agent (not part of `pnpm bench`: it needs no server).
 *
 *   pnpm exec tsx bench/tracing-overhead.ts [--runs=1500] [--concurrency=20] [--rounds=3]
 *
 * Each measurement runs in a fresh process, modes taking turns so drift hits both alike:
 *   off  no OTEL_* exporter: no provider registered, every span the API's no-op (the default);
 *   on   OTLP/HTTP to a local receiver (this process) that accepts and drops every export.
 * Both report runs/s and CPU per run (user + system of the measuring process). The off process
 * also times the span hooks of a run on their own, the figure that says what tracing off costs.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startTracing } from '../apps/server/src/tracing/start-tracing.js';
import { demoRuns, type RunFigures } from './tracing/demo-run-workload.js';
import { hookCost } from './tracing/hook-cost.js';

type Mode = 'off' | 'on';
interface ChildReport extends RunFigures {
  mode: Mode;
  hooks?: ReturnType<typeof hookCost>;
}

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1500' },
    concurrency: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
    child: { type: 'string' },
  },
});
const runs = Number(values.runs);
const concurrency = Number(values.concurrency);
const WARMUP_RUNS = 300;
const HOOK_ITERATIONS = 1_000_000;

async function measure(mode: Mode): Promise<void> {
  // The parent passes OTEL_* for `on`; `off` gets none, as a server started without them.
  const tracing = startTracing(process.env);
  if ((mode === 'on') !== (tracing.summary !== undefined)) throw new Error(`mode ${mode} but tracing says: ${tracing.summary ?? 'off'}`);
  await demoRuns(WARMUP_RUNS, concurrency);
  const figures = await demoRuns(runs, concurrency);
  const report: ChildReport = { mode, ...figures, ...(mode === 'off' ? { hooks: hookCost(HOOK_ITERATIONS) } : {}) };
  await tracing.shutdown();
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function parent(): Promise<void> {
  let exportedBytes = 0;
  const receiver = createServer((req, res) => {
    req.on('data', (part: Buffer) => (exportedBytes += part.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const script = fileURLToPath(import.meta.url);
  const reports: ChildReport[] = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const mode of ['off', 'on'] as const) {
      const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
      if (mode === 'on') env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
      const args = ['--import', 'tsx', script, `--child=${mode}`, `--runs=${runs}`, `--concurrency=${concurrency}`];
      // Asynchronously, so this process's receiver answers the child's exports meanwhile.
      const result = await runChild(args, env);
      if (result.status !== 0) throw new Error(`${mode} run failed:\n${result.stderr}`);
      const report = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as ChildReport;
      reports.push(report);
      process.stderr.write(`[tracing-overhead] round ${round} ${mode}: ${report.runsPerSecond.toFixed(0)} runs/s, ${report.cpuMicrosPerRun.toFixed(0)} µs CPU/run\n`);
    }
  }
  receiver.close();
  printReport(reports, exportedBytes);
}

/** Run this script as a child with `args`; resolves with what it printed and its exit code. */
function runChild(args: string[], env: Record<string, string>): Promise<{ stdout: string; status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, cwd: fileURLToPath(new URL('..', import.meta.url)) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ stdout, status, stderr }));
  });
}

function printReport(reports: ChildReport[], exportedBytes: number): void {
  const of = (mode: Mode) => reports.filter((report) => report.mode === mode);
  const off = { rate: median(of('off').map((r) => r.runsPerSecond)), cpu: median(of('off').map((r) => r.cpuMicrosPerRun)) };
  const on = { rate: median(of('on').map((r) => r.runsPerSecond)), cpu: median(of('on').map((r) => r.cpuMicrosPerRun)) };
  const hooks = of('off').map((report) => report.hooks!);
  const turn = median(hooks.map((h) => h.turnNanos));
  const tool = median(hooks.map((h) => h.toolNanos));
  const empty = median(hooks.map((h) => h.emptyNanos));
  // A run here is one turn and 1.5 tool calls on average (the two tasks take turns).
  const perRunNanos = turn + 1.5 * tool;
  const lines = [
    `Demo-agent runs: ${runs} per measurement after ${WARMUP_RUNS} warm-up, ${concurrency} at a time, ${Number(values.rounds)} rounds; medians.`,
    '',
    '| tracing | runs/s | CPU µs per run | vs off |',
    '|---|---|---|---|',
    `| off (no provider, no-op API) | ${off.rate.toFixed(0)} | ${off.cpu.toFixed(0)} | — |`,
    `| on (OTLP/HTTP JSON to a local receiver) | ${on.rate.toFixed(0)} | ${on.cpu.toFixed(0)} | ${((on.cpu / off.cpu - 1) * 100).toFixed(1)} % CPU |`,
    '',
    `Span hooks with tracing off, timed alone (${HOOK_ITERATIONS.toLocaleString('en')} calls, best of 5): turn span start + end ${turn.toFixed(0)} ns, tool span ${tool.toFixed(0)} ns (empty loop ${empty.toFixed(1)} ns).`,
    `Per run: about ${perRunNanos.toFixed(0)} ns, ${((perRunNanos / 1000 / off.cpu) * 100).toFixed(3)} % of a run's ${off.cpu.toFixed(0)} µs of CPU.`,
    `Exported while on: ${(exportedBytes / 1024).toFixed(0)} KiB of OTLP JSON.`,
  ];
  console.log(lines.join('\n'));
}

if (values.child === 'off' || values.child === 'on') await measure(values.child);
else await parent();
