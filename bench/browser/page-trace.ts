import { mkdirSync, writeFileSync } from 'node:fs';
import type { CDPSession } from 'playwright-core';

/**
 * A Chromium trace and a CPU profile of the page while the chain streams (`pnpm bench
 * --only=browser-chain --trace`): where a frame's time goes. The raw trace opens in the
 * Performance panel (or ui.perfetto.dev), the profile in DevTools' JavaScript profiler.
 */
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'blink', 'cc', 'viz', 'v8.execute'];

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  /** Thread time: what the thread ran, without the time it waited for a core (the machine is shared). */
  tts?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: Record<string, unknown>;
}

/** A running recording; `stop` writes the files and returns a summary. */
export interface PageTrace {
  stop(): Promise<TraceSummary>;
}

/** Self time (ms) of one kind of work on the page's main thread. */
export interface TraceSummary {
  traceFile: string;
  profileFile: string;
  seconds: number;
  frames: number;
  /** Self thread time by event name on the renderer's main thread, ms, heaviest first. */
  mainThread: Array<{ name: string; ms: number; count: number }>;
  /** Thread time by thread (main, compositor, raster workers, the display compositor …), ms. */
  threads: Array<{ thread: string; ms: number }>;
  layoutsPerFrame: number;
  /** Layouts run inside script (read after write: a forced synchronous layout). */
  forcedLayouts: number;
  styleRecalcsPerFrame: number;
}

/** Script-running events: a layout under one of these was forced by the script. */
const SCRIPT = new Set(['FunctionCall', 'EvaluateScript', 'v8.callFunction', 'v8.run', 'RunMicrotasks', 'FireAnimationFrame', 'TimerFire', 'EventDispatch', 'V8.Execute']);

export async function startPageTrace(cdp: CDPSession, directory: string, label: string): Promise<PageTrace> {
  const events: TraceEvent[] = [];
  const collect = (message: { value: object[] }) => events.push(...(message.value as unknown as TraceEvent[]));
  cdp.on('Tracing.dataCollected', collect);
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: CATEGORIES, recordMode: 'recordContinuously' }, transferMode: 'ReportEvents' });
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return {
    async stop() {
      const { profile } = await cdp.send('Profiler.stop');
      const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
      await cdp.send('Tracing.end');
      await done;
      cdp.off('Tracing.dataCollected', collect);
      await cdp.send('Profiler.disable');
      mkdirSync(directory, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const traceFile = `${directory}/${label}-${stamp}.trace.json`;
      const profileFile = `${directory}/${label}-${stamp}.cpuprofile`;
      writeFileSync(traceFile, JSON.stringify({ traceEvents: events }));
      writeFileSync(profileFile, JSON.stringify(profile));
      return { traceFile, profileFile, ...summarise(events) };
    },
  };
}

function threadNames(events: readonly TraceEvent[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const event of events) if (event.ph === 'M' && event.name === 'thread_name') names.set(`${event.pid}:${event.tid}`, String(event.args?.name ?? ''));
  return names;
}

/**
 * Complete events (X, or B/E pairs) of one thread, as [start, end] in µs of thread time where
 * the trace has it (on a loaded machine wall time counts the waits for a core too).
 */
function spans(events: readonly TraceEvent[]): Array<{ name: string; start: number; end: number }> {
  const out: Array<{ name: string; start: number; end: number }> = [];
  const open: TraceEvent[] = [];
  const at = (event: TraceEvent) => event.tts ?? event.ts;
  for (const event of events) {
    if (event.ph === 'X') out.push({ name: event.name, start: at(event), end: at(event) + (event.tts === undefined ? (event.dur ?? 0) : (event.tdur ?? 0)) });
    else if (event.ph === 'B') open.push(event);
    else if (event.ph === 'E') {
      const begun = open.pop();
      if (begun) out.push({ name: begun.name, start: at(begun), end: at(event) });
    }
  }
  return out.sort((a, b) => a.start - b.start || b.end - a.end);
}

export function summarise(events: readonly TraceEvent[]): Omit<TraceSummary, 'traceFile' | 'profileFile'> {
  const names = threadNames(events);
  const byThread = new Map<string, TraceEvent[]>();
  for (const event of events) {
    if (event.ph === 'M') continue;
    const key = `${event.pid}:${event.tid}`;
    let list = byThread.get(key);
    if (!list) byThread.set(key, (list = []));
    list.push(event);
  }
  const threads: Array<{ thread: string; ms: number }> = [];
  let main: Array<{ name: string; start: number; end: number }> = [];
  for (const [key, list] of byThread) {
    const thread = names.get(key) ?? key;
    const all = spans(list);
    // Busy time: the union of the thread's top-level spans.
    let busy = 0;
    let reach = -Infinity;
    for (const span of all) {
      if (span.end <= reach) continue;
      busy += span.end - Math.max(span.start, reach);
      reach = span.end;
    }
    threads.push({ thread, ms: busy / 1_000 });
    if (thread === 'CrRendererMain' && all.length > main.length) main = all;
  }
  // Self time by name: each span's time minus its children's, through a stack.
  const self = new Map<string, { ms: number; count: number }>();
  const stack: Array<{ name: string; end: number; child: number; start: number }> = [];
  let forcedLayouts = 0;
  let layouts = 0;
  let styles = 0;
  const close = (upTo: number) => {
    while (stack.length && (stack[stack.length - 1]?.end ?? 0) <= upTo) {
      const top = stack.pop()!;
      const entry = self.get(top.name) ?? { ms: 0, count: 0 };
      entry.ms += (top.end - top.start - top.child) / 1_000;
      entry.count++;
      self.set(top.name, entry);
      const parent = stack[stack.length - 1];
      if (parent) parent.child += top.end - top.start;
    }
  };
  for (const span of main) {
    close(span.start);
    if (span.name === 'Layout') {
      layouts++;
      if (stack.some((open) => SCRIPT.has(open.name))) forcedLayouts++;
    }
    if (span.name === 'UpdateLayoutTree') styles++;
    stack.push({ name: span.name, end: span.end, child: 0, start: span.start });
  }
  close(Infinity);
  // Frames the main thread produced (the compositor may draw more, scrolling on its own).
  const mainFrames = self.get('ProxyMain::BeginMainFrame')?.count ?? 0;
  const frames = Math.max(1, mainFrames);
  const wall = events.filter((event) => event.ph === 'X' && event.name === 'RunTask');
  const first = wall.reduce((start, event) => Math.min(start, event.ts), Infinity);
  const last = wall.reduce((end, event) => Math.max(end, event.ts + (event.dur ?? 0)), first);
  return {
    seconds: (last - first) / 1e6,
    frames,
    mainThread: [...self].map(([name, entry]) => ({ name, ms: entry.ms, count: entry.count })).sort((a, b) => b.ms - a.ms).slice(0, 25),
    threads: threads.sort((a, b) => b.ms - a.ms).slice(0, 10),
    layoutsPerFrame: layouts / frames,
    forcedLayouts,
    styleRecalcsPerFrame: styles / frames,
  };
}

/** The summary as lines for the bench's log. */
export function traceLines(label: string, summary: TraceSummary): string[] {
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  return [
    `${label}: trace ${summary.traceFile}, profile ${summary.profileFile}`,
    `${label}: ${summary.seconds.toFixed(1)} s traced, ${summary.frames} main-thread frames, ${summary.layoutsPerFrame.toFixed(2)} layouts and ${summary.styleRecalcsPerFrame.toFixed(2)} style recalcs per frame, ${summary.forcedLayouts} layouts forced by script`,
    `${label}: threads busy: ${summary.threads.map((t) => `${t.thread} ${ms(t.ms)}`).join(', ')}`,
    `${label}: main thread self time: ${summary.mainThread.map((e) => `${e.name} ${ms(e.ms)} ×${e.count}`).join(', ')}`,
  ];
}
