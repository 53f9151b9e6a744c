import type { Browser } from 'playwright-core';
import { formatFirehoseTask } from '../../apps/server/src/agents/firehose/firehose-params.js';
import { launchChromium } from '../browser/chromium.js';
import { START_RECORDING, STOP_RECORDING, TIMELINE_ROWS, streamWindow, type FrameRecord } from '../browser/frame-recorder.js';
import { frameStats, type FrameStats } from '../browser/frame-stats.js';
import type { TargetProcess } from '../harness/target-process.js';
import { BenchSocket } from '../load/bench-socket.js';
import { createdSessionId, createRequest } from '../load/stream-workload.js';
import type { BrowserChainScale } from '../modes.js';
import { BenchFailure, check, figure, millis, type BenchContext, type Scenario, type ScenarioReport } from './scenario.js';

/** The targets of the issue: smooth at 1,000 deltas/s on a 2,000-step chain. */
const MIN_FPS = 58;
const MAX_GAP_P99_MS = 20;
/** Alternating kinds, so no two thoughts in a row fold into one line: every step is its own row. */
const KINDS = ['thought', 'action'] as const;

interface BrowserChainResult {
  task: string;
  /** From navigation to the lead's steps all shown. */
  openMs: number;
  /** Rows when the stream started and when it ended. */
  rowsAtStart: number;
  rowsAtEnd: number;
  /** The stream had begun before the page showed the lead: its start was not measured. */
  lateStart: boolean;
  stats: FrameStats;
  pageErrors: string[];
}

const fpsText = (value: number) => `${value.toFixed(1)} fps`;

/** Resolve once the session's first `leadSteps` steps were started (the lead is written at once). */
function leadWritten(socket: BenchSocket, leadSteps: number, timeoutMs: number): { done: Promise<void>; started: () => number } {
  let started = 0;
  let settle: () => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BenchFailure(`The firehose did not write its ${leadSteps}-step lead within ${timeoutMs} ms.`)), timeoutMs);
    settle = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  socket.onDelta = () => undefined;
  socket.onControl = (frame) => {
    if (frame.type !== 'step.started') return;
    started++;
    if (started === leadSteps) settle();
  };
  if (leadSteps === 0) settle();
  return { done, started: () => started };
}

async function measure(browser: Browser, target: TargetProcess, context: BenchContext, scale: BrowserChainScale): Promise<BrowserChainResult> {
  const task = formatFirehoseTask({
    rate: scale.rate,
    count: scale.streamSteps * scale.perStep,
    size: context.scale.deltaSize,
    perStep: scale.perStep,
    delayMs: scale.delayMs,
    leadSteps: scale.leadSteps,
    kinds: [...KINDS],
  });
  const socket = await BenchSocket.connect(target.wsUrl);
  // bypassCSP: the recorder is evaluated as text, which the UI's Content-Security-Policy (no eval) would refuse.
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', bypassCSP: true })).newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  let sessionId: string | undefined;
  try {
    const lead = leadWritten(socket, scale.leadSteps, 60_000);
    sessionId = createdSessionId(await socket.request(createRequest(task)));
    await lead.done;
    const opening = performance.now();
    await page.goto(`${target.httpUrl}/sessions/${encodeURIComponent(sessionId)}`);
    await page.waitForFunction(`${TIMELINE_ROWS} >= ${scale.leadSteps}`, undefined, { timeout: 120_000, polling: 50 });
    const openMs = performance.now() - opening;
    const lateStart = lead.started() > scale.leadSteps + 1;
    await page.evaluate(START_RECORDING);
    const streamMs = (scale.streamSteps * scale.perStep * 1_000) / scale.rate;
    await page.locator('[data-kind="final_answer"]').waitFor({ timeout: 60_000 + scale.delayMs + streamMs * 4 });
    // A few more frames, so the last one of the stream has a successor.
    await page.waitForTimeout(100);
    const record = (await page.evaluate(STOP_RECORDING)) as FrameRecord;
    const stats = frameStats(streamWindow(record));
    if (!stats) throw new BenchFailure('browser-chain: the page drew no frame while the chain grew (did the stream reach the page?).');
    return { task, openMs, rowsAtStart: record.rows[0] ?? 0, rowsAtEnd: record.rows[record.rows.length - 1] ?? 0, lateStart, stats, pageErrors };
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
    const finalSteps = scale.leadSteps + scale.streamSteps;
    context.log(`browser-chain: a ${scale.leadSteps}-step chain, then ${scale.streamSteps} more steps at ${scale.rate} deltas/s`);
    const result = await context.withTarget('interthought', {}, async (target) => {
      const browser = await launchChromium();
      try {
        return await measure(browser, target, context, scale);
      } finally {
        await browser.close();
      }
    });
    const { stats } = result;
    const notes = [
      `Absolute figures: a browser's frame rate has no raw-ws baseline. Headless Chromium (software rendering) at 1280×860; the firehose streams ${scale.streamSteps} steps of ${scale.perStep} deltas onto ${scale.leadSteps} steps written at once (\`${result.task}\`), thought and action in turn so every step is its own row; frames counted from the chain's first new row to its last (${stats.frames} frames in ${stats.seconds.toFixed(1)} s, ${stats.droppedGaps} gaps over 33 ms).`,
    ];
    if (result.lateStart) notes.push('The page showed the lead only after the stream had begun: the first part of the stream was not measured.');
    if (result.pageErrors.length > 0) notes.push(`The page reported errors: ${result.pageErrors.slice(0, 3).join('; ')}.`);
    const none = (value: number) => ({ value, baseline: null });
    return {
      figures: [
        figure(`opening a ${scale.leadSteps}-step chain`, 'ms', 'lower', none(result.openMs), 'no baseline'),
        figure(`frames while streaming to ${finalSteps} steps`, 'fps', 'higher', none(stats.fps), 'no baseline'),
        figure('frame gap p50', 'ms', 'lower', none(stats.gapP50Ms), 'no baseline'),
        figure('frame gap p99', 'ms', 'lower', none(stats.gapP99Ms), 'no baseline'),
        figure('longest frame gap', 'ms', 'lower', none(stats.gapMaxMs), 'no baseline'),
      ],
      targets: [
        check('browser-fps', `Browser: fps at ${scale.rate} deltas/s to ${finalSteps} steps`, stats.fps, { min: MIN_FPS }, fpsText),
        check('browser-gap-p99', `Browser: frame gap p99 to ${finalSteps} steps`, stats.gapP99Ms, { max: MAX_GAP_P99_MS }, millis),
      ],
      notes,
      details: { ...result, finalSteps },
    };
  },
};
