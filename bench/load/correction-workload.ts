import { nowMicros } from '../../apps/server/src/agents/firehose/firehose-text.js';
import { BenchSocket, RequestRefused } from './bench-socket.js';
import { DeltaMeter } from './delta-meter.js';
import type { ControlFrame } from './frame-reader.js';
import { parseControlFrame } from './frame-reader.js';
import type { CorrectionJob, CorrectionResult } from './jobs.js';
import { LatencyRecorder } from './latency.js';
import { closeStreamFleet, createRequest, createdSessionId, measureStream, openStreamFleet } from './stream-workload.js';

const STEP_TIMEOUT_MS = 15_000;

/**
 * Follows the corrected session: which step is streaming, and when the step that follows a
 * correction sends its first delta. Its deltas are few, so they are parsed in full.
 */
class CorrectedSession {
  streamingStepId: string | undefined;
  /** When the last `correction.accepted` arrived (read as it arrives, not when the awaiting code resumes). */
  acceptedAt = 0;
  #awaitingRegeneration: ((at: number) => void) | undefined;
  #regeneratedStepId: string | undefined;
  #watchingForStart = false;
  #onStreaming: (() => void) | undefined;

  constructor(readonly socket: BenchSocket) {
    socket.onDelta = (frame) => {
      const at = nowMicros();
      const delta = parseControlFrame(frame);
      if (delta?.stepId === undefined) return;
      if (this.#awaitingRegeneration !== undefined && delta.stepId === this.#regeneratedStepId) {
        const done = this.#awaitingRegeneration;
        this.#awaitingRegeneration = undefined;
        done(at);
      }
      if (delta.stepId === this.streamingStepId) {
        this.#onStreaming?.();
        this.#onStreaming = undefined;
      }
    };
    socket.onControl = (frame) => this.#onEvent(frame);
  }

  /**
   * The regenerated step is the first one started after `steps.invalidated`: steps the aborted
   * run started earlier may still be on the wire after `correction.accepted`, never after that.
   */
  #onEvent(frame: ControlFrame): void {
    if (frame.type === 'correction.accepted') this.acceptedAt = nowMicros();
    if (frame.type === 'steps.invalidated' && this.#awaitingRegeneration !== undefined) this.#watchingForStart = true;
    if (frame.type !== 'step.started' || frame.step === undefined) return;
    if (frame.step.kind === 'thought') this.streamingStepId = frame.step.stepId;
    if (this.#watchingForStart) {
      this.#watchingForStart = false;
      this.#regeneratedStepId = frame.step.stepId;
    }
  }

  /** Resolves once the current thought step has streamed a delta (so there is something to correct). */
  streaming(): Promise<string> {
    return withTimeout(
      new Promise<void>((resolve) => {
        this.#onStreaming = resolve;
      }).then(() => this.streamingStepId ?? ''),
      'a streaming thought step',
    );
  }

  /** Call before sending a correction: resolves with the arrival time of the regenerated step's first delta. */
  expectRegeneration(): Promise<number> {
    this.#watchingForStart = false;
    this.#regeneratedStepId = undefined;
    return withTimeout(new Promise<number>((resolve) => (this.#awaitingRegeneration = resolve)), 'the regenerated step');
  }
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Waited ${STEP_TIMEOUT_MS} ms for ${what}.`)), STEP_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One correction: sent → accepted → first regenerated delta, in µs on the shared clock. */
async function correctOnce(target: CorrectedSession, sessionId: string, accepted: LatencyRecorder, roundTrip: LatencyRecorder) {
  const stepId = await target.streaming();
  const regenerated = target.expectRegeneration();
  // A refused correction never regenerates: its wait must not become an unhandled rejection.
  regenerated.catch(() => undefined);
  const sentAt = nowMicros();
  await target.socket.request({ type: 'step.correct', sessionId, stepId, content: 'A corrected thought.' });
  accepted.record(target.acceptedAt - sentAt);
  roundTrip.record((await regenerated) - sentAt);
}

/** Correct the streaming step of one session `corrections` times while the background streams. */
export async function runCorrections(job: CorrectionJob): Promise<CorrectionResult> {
  const meter = new DeltaMeter();
  const fleet = await openStreamFleet(job.background, meter);
  const socket = await BenchSocket.connect(job.background.url);
  const target = new CorrectedSession(socket);
  const accepted = new LatencyRecorder();
  const roundTrip = new LatencyRecorder();
  const refused: Record<string, number> = {};
  try {
    const sessionId = createdSessionId(await socket.request(createRequest(job.correctedTask)));
    const background = measureStream(job.background, fleet, meter);
    // Awaited below; if a correction fails first, its outcome must not surface as an unhandled rejection.
    background.catch(() => undefined);
    // Correct only once the background is past its warm-up, so every correction is measured under load.
    await meter.firstDelta(30_000);
    await new Promise((resolve) => setTimeout(resolve, job.background.warmupMs));
    for (let i = 0; i < job.corrections; i++) {
      try {
        await correctOnce(target, sessionId, accepted, roundTrip);
      } catch (error) {
        if (!(error instanceof RequestRefused)) throw error;
        refused[error.code] = (refused[error.code] ?? 0) + 1;
      }
      await new Promise((resolve) => setTimeout(resolve, job.gapMs));
    }
    await socket.request({ type: 'session.cancel', sessionId }).catch(() => undefined);
    return {
      kind: 'correction',
      accepted: accepted.summary(),
      roundTrip: roundTrip.summary(),
      corrections: roundTrip.count,
      refused,
      background: await background,
    };
  } finally {
    socket.close();
    await closeStreamFleet(fleet);
  }
}
