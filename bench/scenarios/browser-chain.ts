import type { Browser, CDPSession } from 'playwright-core';
import { formatFirehoseTask, type FirehoseStepKind } from '../../apps/server/src/agents/firehose/firehose-params.js';
import { launchChromium } from '../browser/chromium.js';
import { START_RECORDING, STEPS_SHOWN, STOP_RECORDING, streamWindow, type FrameRecord } from '../browser/frame-recorder.js';
import { frameStats, type FrameStats } from '../browser/frame-stats.js';
import { startPageTrace, traceLines, type PageTrace, type TraceSummary } from '../browser/page-trace.js';
import type { TargetProcess } from '../harness/target-process.js';
import { BenchSocket } from '../load/bench-socket.js';
import { createdSessionId, createRequest } from '../load/stream-workload.js';
import type { BrowserChainScale } from '../modes.js';
import { BenchFailure, check, figure, millis, type BenchContext, type Scenario, type ScenarioReport } from './scenario.js';

/** The targets of the issue: smooth at 1,000 deltas/s on a 2,000-step chain. */
const MIN_FPS = 58;
const MAX_GAP_P99_MS = 20;
/** And a 10,000-step session: open (first steps painted, scrollable) within a second, then ≥ 55 fps while it streams. */
const LONG_MAX_OPEN_MS = 1_000;
const LONG_MIN_FPS = 55;

interface VariantSpec {
  kinds: readonly FirehoseStepKind[];
  label: string;
  /** The lead written at once, the steps streamed after it, and the wait between the two. */
  shape(scale: BrowserChainScale): { leadSteps: number; streamSteps: number; delayMs: number };
  /** The very long chain: its open time has a target and its page memory is reported. */
  long?: boolean;
}

/**
 * The shapes of a long chain: thought and action in turn, so no thoughts fold and every step
 * is its own row (the heavy case), thoughts only, which fold into one line as they complete, and
 * the heavy case at 10,000 steps.
 */
const VARIANTS = {
  rows: { kinds: ['thought', 'action'], label: 'every step a row', shape: (s) => ({ leadSteps: s.leadSteps, streamSteps: s.streamSteps, delayMs: s.delayMs }) },
  folded: { kinds: ['thought'], label: 'thoughts folded', shape: (s) => ({ leadSteps: s.leadSteps, streamSteps: s.streamSteps, delayMs: s.delayMs }) },
  long: {
    kinds: ['thought', 'action'],
    label: 'very long chain, every step a row',
    shape: (s) => ({ leadSteps: s.longLeadSteps, streamSteps: s.longStreamSteps, delayMs: s.longDelayMs }),
    long: true,
  },
} as const satisfies Record<string, VariantSpec>;
type Variant = keyof typeof VARIANTS;

/** The page's memory as Chromium counts it: the JS heap in use and the DOM nodes alive. */
interface PageMemory {
  jsHeapUsedMb: number;
  domNodes: number;
}

/**
 * Open: a row drawn and measured (virtua hides a row until it has its size), and the page
 * scrollable where the chain is taller than the window (a folded chain may not be).
 */
const opened = (scrollable: boolean) => `(() => {
  const row = document.querySelector('.chain .rows [data-row]');
  const scroller = document.querySelector('[data-scroller]');
  return row !== null && row.style.visibility !== 'hidden' && scroller !== null && (${!scrollable} || scroller.scrollHeight > scroller.clientHeight);
})()`;
const NEXT_PAINT = `new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))`;

interface BrowserChainResult {
  variant: Variant;
  task: string;
  leadSteps: number;
  streamSteps: number;
  /** From navigation to the lead's steps all known to the page, its first steps painted and the page scrollable. */
  openMs: number;
  /** Memory once opened and once the stream ended. */
  memoryOpened: PageMemory;
  memoryEnd: PageMemory;
  /** Steps shown when the recording started and when it ended. */
  stepsAtStart: number;
  stepsAtEnd: number;
  /** The stream had begun before the page showed the lead: its start was not measured. */
  lateStart: boolean;
  stats: FrameStats;
  /**
   * The page's main thread: CPU time from the stream's start until it showed the last step, per
   * second the stream lasted (1 = a whole core). Work, not a share of what the machine gave: over 1
   * the page cannot keep up even on a core of its own.
   */
  mainThreadCpuShare: number;
  pageErrors: string[];
  /** `--trace`: where the stream's frames went. */
  trace?: TraceSummary;
}

/** `BENCH_BROWSER_VARIANTS=rows,long`: measure only these (while working on one; a report needs all three). */
function chosenVariants(): Variant[] {
  const all = Object.keys(VARIANTS) as Variant[];
  const chosen = process.env.BENCH_BROWSER_VARIANTS?.split(',').map((name) => name.trim());
  if (!chosen) return all;
  const unknown = chosen.filter((name) => !(all as string[]).includes(name));
  if (unknown.length) throw new BenchFailure(`BENCH_BROWSER_VARIANTS: no variant ${unknown.join(', ')} (there are ${all.join(', ')}).`);
  return chosen as Variant[];
}

const fpsText = (value: number) => `${value.toFixed(1)} fps`;

/** `promise`, or a BenchFailure after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BenchFailure(`${what} within ${ms} ms.`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the harness's own connection to the session saw: the lead written, the session completed. */
interface SessionProgress {
  leadWritten: Promise<void>;
  /** The first step after the lead started: the paced stream began. */
  streamStarted: Promise<void>;
  completed: Promise<void>;
  /** Steps started so far. */
  started(): number;
}

/** Follow the session on the creator's connection (the page is not asked anything while it is measured). */
function followSession(socket: BenchSocket, leadSteps: number, timeoutMs: number): SessionProgress {
  let started = 0;
  let onLead: () => void = () => undefined;
  let onCompleted: () => void = () => undefined;
  let onStream: () => void = () => undefined;
  const streamStarted = new Promise<void>((resolve) => (onStream = resolve));
  const leadWritten = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BenchFailure(`The firehose did not write its ${leadSteps}-step lead within ${timeoutMs} ms.`)), timeoutMs);
    onLead = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  const completed = new Promise<void>((resolve) => (onCompleted = resolve));
  socket.onDelta = () => undefined;
  socket.onControl = (frame) => {
    if (frame.type === 'session.status' && frame.status === 'completed') onCompleted();
    if (frame.type !== 'step.started') return;
    started++;
    if (started === leadSteps) onLead();
    if (started === leadSteps + 1) onStream();
  };
  if (leadSteps === 0) onLead();
  return { leadWritten, streamStarted, completed, started: () => started };
}

async function pageMemory(cdp: CDPSession): Promise<PageMemory> {
  await cdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
  const { metrics } = await cdp.send('Performance.getMetrics');
  const metric = (name: string) => metrics.find((entry) => entry.name === name)?.value ?? 0;
  return { jsHeapUsedMb: metric('JSHeapUsedSize') / 1_048_576, domNodes: metric('Nodes') };
}

async function measure(browser: Browser, target: TargetProcess, context: BenchContext, base: BrowserChainScale, variant: Variant): Promise<BrowserChainResult> {
  const scale = { ...base, ...VARIANTS[variant].shape(base) };
  const task = formatFirehoseTask({
    rate: scale.rate,
    count: scale.streamSteps * scale.perStep,
    size: context.scale.deltaSize,
    perStep: scale.perStep,
    delayMs: scale.delayMs,
    leadSteps: scale.leadSteps,
    kinds: [...VARIANTS[variant].kinds],
  });
  const socket = await BenchSocket.connect(target.wsUrl);
  // bypassCSP: the recorder is evaluated as text, which the UI's Content-Security-Policy (no eval) would refuse.
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', bypassCSP: true })).newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  let sessionId: string | undefined;
  try {
    const progress = followSession(socket, scale.leadSteps, 60_000);
    sessionId = createdSessionId(await socket.request(createRequest(task)));
    await progress.leadWritten;
    const cdp = await page.context().newCDPSession(page);
    // Traced, the opening too: its own trace and profile, from navigation to the first steps painted.
    const tracingOpen: PageTrace | undefined = context.traceDir === undefined ? undefined : await startPageTrace(cdp, context.traceDir, `browser-chain-${variant}-open`);
    const opening = performance.now();
    await page.goto(`${target.httpUrl}/sessions/${encodeURIComponent(sessionId)}`);
    await page.waitForFunction(`${STEPS_SHOWN} >= ${scale.leadSteps} && ${opened(VARIANTS[variant].kinds.length > 1)}`, undefined, { timeout: 120_000, polling: 50 });
    await page.evaluate(NEXT_PAINT);
    const openMs = performance.now() - opening;
    const openTrace = await tracingOpen?.stop();
    if (openTrace) for (const line of traceLines(`${VARIANTS[variant].label}, opening`, openTrace)) context.log(line);
    const lateStart = progress.started() > scale.leadSteps + 1;
    // CPU time of the page's main thread (thread ticks): what keeping up costs, whatever else runs on the machine.
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
    const memoryOpened = await pageMemory(cdp);
    const sample = async () => {
      const { metrics } = await cdp.send('Performance.getMetrics');
      return { cpu: metrics.find((metric) => metric.name === 'ThreadTime')?.value ?? 0 };
    };
    await page.evaluate(START_RECORDING);
    const streamMs = (scale.streamSteps * scale.perStep * 1_000) / scale.rate;
    const timeoutMs = 60_000 + scale.delayMs + streamMs * 4;
    await within(progress.streamStarted, timeoutMs, 'The stream did not start');
    // From the stream's start: traced, the page runs slower, so its figures say where time goes, not how fast it is.
    const tracing: PageTrace | undefined = context.traceDir === undefined ? undefined : await startPageTrace(cdp, context.traceDir, `browser-chain-${variant}`);
    const from = await sample();
    await within(progress.completed, timeoutMs, 'The session did not complete');
    // Then the page, asked rarely (an O(1) read) so asking costs it nothing, until it shows every step.
    const finalSteps = scale.leadSteps + scale.streamSteps + 1;
    await page.waitForFunction(`${STEPS_SHOWN} >= ${finalSteps}`, undefined, { timeout: timeoutMs, polling: 200 });
    const to = await sample();
    const mainThreadCpuShare = (to.cpu - from.cpu) / (streamMs / 1_000);
    const trace = await tracing?.stop();
    if (trace) for (const line of traceLines(VARIANTS[variant].label, trace)) context.log(line);
    // A few more frames, so the last one of the stream has a successor.
    await page.waitForTimeout(100);
    const record = (await page.evaluate(STOP_RECORDING)) as FrameRecord;
    const stats = frameStats(streamWindow(record));
    if (!stats) throw new BenchFailure(`browser-chain (${variant}): the page drew no frame while the chain grew (did the stream reach the page?).`);
    const memoryEnd = await pageMemory(cdp);
    return { variant, task, leadSteps: scale.leadSteps, streamSteps: scale.streamSteps, openMs, memoryOpened, memoryEnd, stepsAtStart: record.steps[0] ?? 0, stepsAtEnd: record.steps[record.steps.length - 1] ?? 0, lateStart, stats, mainThreadCpuShare, pageErrors, ...(trace ? { trace } : {}) };
  } finally {
    if (sessionId !== undefined) await socket.request({ type: 'session.cancel', sessionId }).catch(() => undefined);
    socket.close();
    await page.context().close();
  }
}

/**
 * Headless Chromium opens a long chain (the firehose's unpaced lead), then draws while the
 * session streams onto it at 1,000 deltas/s; frames are timed in the page by requestAnimationFrame.
 */
export const browserChainScenario: Scenario = {
  name: 'browser-chain',
  title: 'Long chain in the browser',
  async run(context): Promise<ScenarioReport> {
    const scale = context.scale.browserChain;
    context.log(`browser-chain: a ${scale.leadSteps}-step chain, then ${scale.streamSteps} more steps at ${scale.rate} deltas/s; and ${scale.longLeadSteps} steps, then ${scale.longStreamSteps} more`);
    const unmeasured: string[] = [];
    const results = await context.withTarget('interthought', {}, async (target) => {
      const browser = await launchChromium();
      try {
        const measured: BrowserChainResult[] = [];
        for (const variant of chosenVariants()) {
          context.log(`browser-chain: ${VARIANTS[variant].label}`);
          try {
            measured.push(await measure(browser, target, context, scale, variant));
          } catch (error) {
            // One variant the loaded machine could not measure (a page that opened after its stream ended) leaves the others' figures standing.
            if (!(error instanceof BenchFailure)) throw error;
            context.log(`browser-chain: ${VARIANTS[variant].label} not measured: ${error.message}`);
            unmeasured.push(`${VARIANTS[variant].label}: not measured: ${error.message}`);
          }
        }
        if (measured.length === 0) throw new BenchFailure(`browser-chain: no variant measured (${unmeasured.join(' ')})`);
        return measured;
      } finally {
        await browser.close();
      }
    });
    const notes = [
      `Absolute figures: a browser's frame rate has no raw-ws baseline. Headless Chromium (software rendering) at 1280×860; the firehose streams ${scale.streamSteps} steps of ${scale.perStep} deltas (${(scale.rate / scale.perStep).toLocaleString('en-US')} new steps a second, far more than an agent writes) onto ${scale.leadSteps} steps written at once (the very long chain: ${scale.longStreamSteps} onto ${scale.longLeadSteps}); frames counted from the chain's first new step to its last. Opening: navigation until the page knows every step of the lead, has painted the first ones and can scroll. Memory: Chromium's JSHeapUsedSize and DOM node count (CDP Performance.getMetrics) after a forced GC.`,
    ];
    notes.push(...unmeasured);
    const figures = [];
    const targets = [];
    for (const result of results) {
      const { stats, variant } = result;
      const label = VARIANTS[variant].label;
      const finalSteps = result.leadSteps + result.streamSteps;
      const long = 'long' in VARIANTS[variant];
      const none = (value: number) => ({ value, baseline: null });
      notes.push(`${label}: \`${result.task}\`, ${stats.frames} frames in ${stats.seconds.toFixed(1)} s, ${stats.droppedGaps} gaps over 33 ms.`);
      if (result.lateStart) notes.push(`${label}: the page showed the lead only after the stream had begun: the first part of the stream was not measured.`);
      if (result.pageErrors.length > 0) notes.push(`${label}: the page reported errors: ${result.pageErrors.slice(0, 3).join('; ')}.`);
      figures.push(
        figure(`${label}: opening ${result.leadSteps} steps`, 'ms', 'lower', none(result.openMs), 'no baseline'),
        figure(`${label}: page JS heap at ${result.leadSteps} steps`, 'MB', 'lower', none(result.memoryOpened.jsHeapUsedMb), 'no baseline'),
        figure(`${label}: page JS heap at ${finalSteps} steps`, 'MB', 'lower', none(result.memoryEnd.jsHeapUsedMb), 'no baseline'),
        figure(`${label}: DOM nodes at ${finalSteps} steps`, 'nodes', 'lower', none(result.memoryEnd.domNodes), 'no baseline'),
        figure(`${label}: frames streaming to ${finalSteps} steps`, 'fps', 'higher', none(stats.fps), 'no baseline'),
        figure(`${label}: frame gap p50`, 'ms', 'lower', none(stats.gapP50Ms), 'no baseline'),
        figure(`${label}: frame gap p99`, 'ms', 'lower', none(stats.gapP99Ms), 'no baseline'),
        figure(`${label}: longest frame gap`, 'ms', 'lower', none(stats.gapMaxMs), 'no baseline'),
        figure(`${label}: page main-thread CPU per second of stream`, '% of a core', 'lower', none(result.mainThreadCpuShare * 100), 'no baseline'),
      );
      if (long) {
        targets.push(
          check(`browser-open-${variant}`, `Browser (${label}): opening ${result.leadSteps} steps`, result.openMs, { max: LONG_MAX_OPEN_MS }, millis),
          check(`browser-fps-${variant}`, `Browser (${label}): fps at ${scale.rate} deltas/s to ${finalSteps} steps`, stats.fps, { min: LONG_MIN_FPS }, fpsText),
        );
      } else {
        targets.push(
          check(`browser-fps-${variant}`, `Browser (${label}): fps at ${scale.rate} deltas/s to ${finalSteps} steps`, stats.fps, { min: MIN_FPS }, fpsText),
          check(`browser-gap-p99-${variant}`, `Browser (${label}): frame gap p99 to ${finalSteps} steps`, stats.gapP99Ms, { max: MAX_GAP_P99_MS }, millis),
        );
      }
    }
    return { figures, targets, notes, details: { results } };
  },
};
