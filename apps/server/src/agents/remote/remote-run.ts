import { AGENT_ERROR_CODES, DELEGATE_TOOL, agentErrorFrame, type AgentServerMessage, type RunStart, type WorkerMessage } from '@interthought/protocol';
import { RunInterruptedError, type AgentRunContext, type StepWriter } from '@interthought/agent';
import { WorkerFrameError } from './worker-frame-error.js';
import { applyToolRun } from './tool-run.js';
import { DelegateBatch } from './delegate-batch.js';

/** Every worker frame that names a run. */
export type RunFrame = Exclude<WorkerMessage, { type: 'agent.register' }>;

/** What a run needs of the worker connection it came over. */
export interface RunLink {
  send(frame: AgentServerMessage): void;
  /** The run is over; `retire` keeps it a while so in-flight frames (and `usage`) of an aborted run are not refused. */
  released(run: RemoteRun, retire: boolean): void;
  /** Something the worker cannot be blamed for failed: logged by the connection. */
  report(context: string, error: unknown): void;
}

export interface RunLimits {
  maxStepChars: number;
  maxQueuedFrames: number;
}

/** A step the worker started, by its `ref`. */
export interface RefStep {
  readonly writer: StepWriter;
  readonly kind: string;
  chars: number;
  ended: boolean;
}

/** Deltas of an unpaced run applied in one turn at most, as the firehose's batch (a write's pacing is a turn). */
const DELTAS_PER_TURN = 512;

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error || reason instanceof DOMException ? reason.message : 'The run was aborted.';
}

/**
 * One run of a remote agent: the worker's frames for it become `StepSink` calls, applied in
 * order, one at a time, as an in-process agent's awaited writes would be (PROTOCOL.md Part II §A5).
 * The frames waiting are bounded, and `flow` tells the worker when to wait (§A7).
 *
 * The frames one socket read delivers are applied together, in one synchronous run after it
 * (a microtask), as an in-process agent's writes of one tick are: the session's outbox then
 * writes and sends them as one batch instead of one transaction and one fan-out per frame. Only
 * a frame that must wait (pacing, a pause, the outbox's backlog, a tool) ends the run early.
 */
export class RemoteRun {
  readonly done: Promise<void>;
  readonly #context: AgentRunContext;
  readonly #link: RunLink;
  readonly #limits: RunLimits;
  readonly #steps = new Map<string, RefStep>();
  readonly #flowHigh: number;
  readonly #flowLow: number;
  #open: RefStep | undefined;
  #resolve!: () => void;
  #reject!: (error: unknown) => void;
  #over = false;
  #aborted = false;
  /** Frames accepted and not applied yet; the first is the one being applied. */
  readonly #waiting: RunFrame[] = [];
  #pumping = false;
  #batch: DelegateBatch | undefined;
  #flowPaused = false;
  #draining = false;
  /** Deltas written and not awaited yet (unpaced sessions only), and the last of them. */
  #unawaited = 0;
  #lastWrite: Promise<void> | undefined;

  constructor(
    readonly runId: string,
    context: AgentRunContext,
    link: RunLink,
    limits: RunLimits,
  ) {
    this.#context = context;
    this.#link = link;
    this.#limits = limits;
    this.#flowHigh = Math.max(2, Math.floor(limits.maxQueuedFrames / 8));
    this.#flowLow = Math.floor(this.#flowHigh / 4);
    this.done = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Marked handled: the agent's caller awaits it, but an interruption after an abort has no one waiting.
    this.done.catch(() => undefined);
    context.signal.addEventListener('abort', () => this.#onAbort(), { once: true });
  }

  /** The agent `run.start` named. */
  agentName = '';

  get context(): AgentRunContext {
    return this.#context;
  }

  get aborted(): boolean {
    return this.#aborted || this.#context.signal.aborted;
  }

  /** Send `run.start`; an already aborted run (the session moved on before) ends at once. */
  begin(start: RunStart): void {
    this.agentName = start.agent;
    if (this.#context.signal.aborted) {
      this.#onAbort();
      return;
    }
    this.#link.send(start);
  }

  /** A frame of this run: queued behind the run's earlier frames. */
  accept(frame: RunFrame): void {
    if (this.#over) {
      // Of an aborted run only usage still counts: the tokens were spent all the same.
      if (this.#aborted && frame.type === 'usage') void this.#applySafely(frame);
      return;
    }
    if (this.#waiting.length >= this.#limits.maxQueuedFrames) {
      this.#flowExceeded();
      return;
    }
    this.#waiting.push(frame);
    this.#updateFlow();
    if (!this.#pumping) {
      this.#pumping = true;
      // After the rest of this socket read is accepted: its frames are applied in one run.
      queueMicrotask(() => void this.#pump());
    }
  }

  /** The worker went away: the session is interrupted, resumable on another worker. */
  interrupt(detail: string): void {
    if (this.#over) return;
    this.#over = true;
    this.#reject(new RunInterruptedError(detail));
  }

  send(frame: AgentServerMessage): void {
    this.#link.send(frame);
  }

  step(ref: string): RefStep {
    const step = this.#steps.get(ref);
    if (step === undefined) throw new WorkerFrameError('UNKNOWN_STEP', `Run ${this.runId} has no step "${ref}": send step.start with that ref first.`);
    return step;
  }

  /** Start a step through the sink; the step still open ends, as the sink ends it. */
  startStep(ref: string, kind: Parameters<AgentRunContext['sink']['start']>[0], tool: string | undefined): RefStep {
    if (this.#steps.has(ref)) throw new WorkerFrameError('DUPLICATE_REF', `Run ${this.runId} already has a step "${ref}": give every step of a run its own ref.`);
    const writer = this.#context.sink.start(kind, tool === undefined ? undefined : { tool });
    this.closeOpenStep();
    const step: RefStep = { writer, kind, chars: 0, ended: false };
    this.#steps.set(ref, step);
    this.#open = step;
    return step;
  }

  /** The sink ends the open step when another starts: the ref follows. */
  closeOpenStep(): void {
    if (this.#open !== undefined) this.#open.ended = true;
    this.#open = undefined;
  }

  /** Apply the waiting frames in order, synchronously while none has to wait. */
  async #pump(): Promise<void> {
    const waiting = this.#waiting;
    try {
      while (waiting.length > 0) {
        const pending = this.#applySafely(waiting[0]!);
        if (pending !== undefined) await pending;
        // Array.shift moves at most maxQueuedFrames pointers: cheap next to applying a frame.
        waiting.shift();
        this.#updateFlow();
      }
    } finally {
      this.#pumping = false;
    }
  }

  /** Undefined once `frame` is applied; a promise when it has to wait. Never rejects. */
  #applySafely(frame: RunFrame): Promise<void> | undefined {
    if (this.#over && !(this.#aborted && frame.type === 'usage')) {
      if (frame.type === 'tool.run') this.#refuseToolRun(frame.id);
      return undefined;
    }
    try {
      return this.#apply(frame)?.catch((error: unknown) => this.#refuse(frame, error));
    } catch (error) {
      this.#refuse(frame, error);
      return undefined;
    }
  }

  /** A frame that could not be applied: its typed error to the worker, or nothing once the session moved on. */
  #refuse(frame: RunFrame, error: unknown): void {
    if (error instanceof WorkerFrameError) {
      const names = { runId: this.runId, ...('ref' in frame ? { ref: frame.ref } : {}), ...(frame.type === 'tool.run' ? { requestId: frame.id } : {}) };
      this.#link.send(agentErrorFrame(error.code, error.message, names, error.details));
    } else if (this.aborted || this.#over) {
      // The session moved on while the frame waited: nothing to tell, except a tool.run's caller.
      if (frame.type === 'tool.run') this.#refuseToolRun(frame.id);
    } else {
      this.#link.report(`applying a worker's ${frame.type} frame failed`, error);
      this.#link.send(agentErrorFrame(AGENT_ERROR_CODES.INTERNAL, 'The server could not apply the frame.', { runId: this.runId, ...(frame.type === 'tool.run' ? { requestId: frame.id } : {}) }));
    }
  }

  /** The batch a delegate `tool.run` joins: the open one, or a new one once the last is written out. */
  delegateBatch(): DelegateBatch {
    if (this.#batch === undefined || this.#batch.closed) this.#batch = new DelegateBatch(this);
    return this.#batch;
  }

  #apply(frame: RunFrame): Promise<void> | undefined {
    // The parent writes nothing while its batch runs: any other frame waits for the batch's observations.
    const joins = frame.type === 'tool.run' && frame.tool === DELEGATE_TOOL && this.#batch?.closed === false;
    if (this.#batch !== undefined && !joins) {
      const batch = this.#batch;
      return batch.done.then(() => {
        if (this.#batch === batch) this.#batch = undefined;
        return this.#applyInOrder(frame);
      });
    }
    return this.#applyInOrder(frame);
  }

  #applyInOrder(frame: RunFrame): Promise<void> | undefined {
    // Whatever is not a delta comes after the deltas before it are out.
    if (frame.type !== 'step.delta' && this.#lastWrite !== undefined) return this.#settleWrites().then(() => this.#applyNow(frame));
    return this.#applyNow(frame);
  }

  #applyNow(frame: RunFrame): Promise<void> | undefined {
    const { sink } = this.#context;
    switch (frame.type) {
      case 'step.start':
        this.startStep(frame.ref, frame.kind, frame.tool);
        return undefined;
      case 'step.delta':
        return this.#delta(frame.ref, frame.text);
      case 'step.end':
        this.#end(frame.ref, frame.result);
        return undefined;
      case 'usage':
        this.#usage(frame);
        return undefined;
      case 'notice':
        sink.notice(frame.detail);
        return undefined;
      case 'run.end':
        this.#finish();
        this.#resolve();
        return undefined;
      case 'run.fail':
        this.#finish();
        this.#reject(new Error(frame.message));
        return undefined;
      case 'tool.run':
        return applyToolRun(this, frame);
    }
  }

  #delta(ref: string, text: string): Promise<void> | undefined {
    const step = this.step(ref);
    if (step.ended) throw new WorkerFrameError('STEP_ENDED', `Step "${ref}" of run ${this.runId} has ended (starting the next step ends the open one): start a new step to write more.`);
    if (step.chars + text.length > this.#limits.maxStepChars) {
      throw new WorkerFrameError('STEP_TOO_LARGE', `Step "${ref}" would pass ${this.#limits.maxStepChars} characters: the delta was dropped; start a new step.`);
    }
    step.chars += text.length;
    const written = step.writer.write(text);
    // Checked after every write, as an in-process agent writing without awaiting each checks it.
    const backlog = step.writer.backpressure?.();
    // An unpaced session takes the deltas waiting behind this one in the same turn, as it takes an
    // in-process agent's writes issued without awaiting each; a paced one waits out every token.
    if (backlog === undefined && this.#context.options.tokenDelayMs === 0 && this.#waiting.length > 1 && this.#unawaited < DELTAS_PER_TURN) {
      written.catch(() => undefined);
      this.#unawaited += 1;
      this.#lastWrite = written;
      return undefined;
    }
    this.#unawaited = 0;
    this.#lastWrite = undefined;
    return this.#settle(written, step.writer, backlog);
  }

  /** Wait out a write; while the session's outbox is over its mark, hold this run's frames and tell the worker to wait. */
  async #settle(written: Promise<void>, writer: StepWriter, backlog: Promise<void> | undefined): Promise<void> {
    if (backlog === undefined) {
      await written;
      backlog = writer.backpressure?.();
      if (backlog === undefined) return;
    }
    written.catch(() => undefined);
    this.#draining = true;
    this.#updateFlow();
    try {
      await backlog;
      await written;
    } finally {
      this.#draining = false;
    }
  }

  async #settleWrites(): Promise<void> {
    const last = this.#lastWrite;
    this.#unawaited = 0;
    this.#lastWrite = undefined;
    if (last !== undefined) await last;
  }

  #end(ref: string, result: unknown): void {
    const step = this.step(ref);
    if (step.ended) throw new WorkerFrameError('STEP_ENDED', `Step "${ref}" of run ${this.runId} has already ended.`);
    step.ended = true;
    if (this.#open === step) this.#open = undefined;
    step.writer.end(result === undefined ? undefined : { result });
    // A call that waits for approval or that a rule denied aborted the run (run.abort is out, PROTOCOL.md §25.6); one allowed may run now.
    if (step.kind === 'tool_call' && !this.aborted && !this.#over) {
      this.#link.send({ type: 'call.cleared', runId: this.runId, ref, stepId: step.writer.stepId });
    }
  }

  #usage(frame: Extract<RunFrame, { type: 'usage' }>): void {
    const stepIds = frame.refs.map((ref) => {
      const step = this.#steps.get(ref);
      if (step === undefined) throw new WorkerFrameError('BAD_USAGE', `The usage names step "${ref}", which run ${this.runId} never started.`);
      return step.writer.stepId;
    });
    try {
      this.#context.sink.usage({
        model: frame.model,
        usage: frame.usage,
        stepIds,
        ...(frame.timeToFirstTokenMs === undefined ? {} : { timeToFirstTokenMs: frame.timeToFirstTokenMs }),
        ...(frame.durationMs === undefined ? {} : { durationMs: frame.durationMs }),
      });
    } catch (error) {
      if (error instanceof TypeError) throw new WorkerFrameError('BAD_USAGE', error.message);
      throw error;
    }
  }

  #refuseToolRun(requestId: string): void {
    this.#link.send(agentErrorFrame('RUN_ABORTED', `Run ${this.runId} is over: the tool did not run.`, { requestId, runId: this.runId }));
  }

  #finish(): void {
    this.#over = true;
    this.#link.released(this, false);
  }

  #onAbort(): void {
    if (this.#over) return;
    this.#over = true;
    this.#aborted = true;
    this.#link.send({ type: 'run.abort', runId: this.runId, reason: reasonOf(this.#context.signal) });
    this.#resolve();
    this.#link.released(this, true);
  }

  /** The worker ignored `flow`: its run fails, and only its run. */
  #flowExceeded(): void {
    this.#over = true;
    this.#aborted = true;
    const message = `The worker kept sending frames of run ${this.runId} after flow { paused: true } until ${this.#limits.maxQueuedFrames} waited: the run is failed.`;
    this.#link.send(agentErrorFrame('FLOW_EXCEEDED', message, { runId: this.runId }));
    this.#link.send({ type: 'run.abort', runId: this.runId, reason: 'The run was aborted: the worker ignored flow control.' });
    this.#reject(new Error(message));
    this.#link.released(this, true);
  }

  #updateFlow(): void {
    if (this.#over) return;
    const queued = this.#waiting.length;
    if (!this.#flowPaused && (this.#draining || queued >= this.#flowHigh)) {
      this.#flowPaused = true;
      this.#link.send({ type: 'flow', runId: this.runId, paused: true });
    } else if (this.#flowPaused && !this.#draining && queued <= this.#flowLow) {
      this.#flowPaused = false;
      this.#link.send({ type: 'flow', runId: this.runId, paused: false });
    }
  }
}
