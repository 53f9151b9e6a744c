/**
 * Where a server's CPU went: reads a V8 `.cpuprofile` (from `pnpm bench --cpu-prof`) and prints
 * self time by function and by file, and inclusive time by function, heaviest first.
 *
 *   pnpm exec tsx bench/profile-summary.ts bench/results/profiles/CPU.….cpuprofile [rows]
 */
import { readFileSync } from 'node:fs';
import { REPO_ROOT } from './harness/target-process.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

type Totals = Map<string, number>;

function add(totals: Totals, key: string, micros: number): void {
  totals.set(key, (totals.get(key) ?? 0) + micros);
}

function fileOf(frame: CallFrame): string {
  const url = frame.url.replace('file://', '').replace(REPO_ROOT, '');
  if (url === '') return `(${frame.functionName})`;
  const dependency = /node_modules\/(?:\.pnpm\/)?([^/]+)/.exec(url)?.[1];
  return dependency === undefined ? url : `dependency ${dependency}`;
}

function functionOf(frame: CallFrame): string {
  return `${frame.functionName || '(anonymous)'} ${fileOf(frame)}:${frame.lineNumber + 1}`;
}

/** Microseconds sampled in each node (its self time). */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  return self;
}

function summarise(profile: CpuProfile): { total: number; byFunction: Totals; byFile: Totals; inclusive: Totals } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const byFunction: Totals = new Map();
  const byFile: Totals = new Map();
  const inclusive: Totals = new Map();
  let total = 0;
  for (const [id, micros] of selfTimes(profile)) {
    const node = nodes.get(id);
    if (node === undefined || micros === 0) continue;
    total += micros;
    add(byFunction, functionOf(node.callFrame), micros);
    add(byFile, fileOf(node.callFrame), micros);
    // A recursive function counts once per sample.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const frame = nodes.get(at)?.callFrame;
      const key = frame === undefined ? '' : functionOf(frame);
      if (frame === undefined || seen.has(key)) continue;
      seen.add(key);
      add(inclusive, key, micros);
    }
  }
  return { total, byFunction, byFile, inclusive };
}

function table(title: string, totals: Totals, total: number, rows: number): string {
  const lines = [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows)
    .map(([key, micros]) => `${(micros / 1_000).toFixed(0).padStart(8)} ms ${((100 * micros) / total).toFixed(1).padStart(5)} %  ${key}`);
  return [`--- ${title}`, ...lines].join('\n');
}

const [file, rowsText] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('Usage: pnpm exec tsx bench/profile-summary.ts <file.cpuprofile> [rows]\n');
  process.exit(2);
}
const rows = Number(rowsText ?? 30);
const { total, byFunction, byFile, inclusive } = summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
process.stdout.write(
  [
    `${file}: ${(total / 1_000).toFixed(0)} ms sampled ((idle) is time the event loop waited)`,
    table('self time by function', byFunction, total, rows),
    table('self time by file', byFile, total, rows),
    table('inclusive time by function', inclusive, total, rows),
  ].join('\n\n') + '\n',
);
