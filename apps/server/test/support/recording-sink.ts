import type { StepKind } from '@interthought/protocol';
import type { ModelCallReport, StepSink, StepWriter } from '@interthought/agent';

/**
 * One call the agent made on the sink, in call order. A call the sink refused (after an abort,
 * on an ended step, or out of sequence) is still logged, with `refused: true`, so a test can see
 * that an agent kept calling after it should have stopped.
 */
export type SinkEvent =
  | { type: 'start'; stepId: string; kind: StepKind; tool?: string; refused?: true }
  | { type: 'write'; stepId: string; text: string; refused?: true }
  | { type: 'end'; stepId: string; result?: unknown }
  | { type: 'notice'; detail: string }
  | { type: 'usage'; report: ModelCallReport };

/** A step as the sink accepted it: what was started, every write it took, and how it ended. */
export interface RecordedStep {
  stepId: string;
  kind: StepKind;
  tool?: string;
  writes: string[];
  content: string;
  ended: boolean;
  result?: unknown;
}

export interface RecordingSinkOptions {
  /** The run's signal: once it aborts, `start` throws and `write` rejects with its reason, as the core's sink does. */
  signal?: AbortSignal;
  /** 'immediate' resolves writes at once; 'next-turn' resolves on a later turn (setImmediate), like the core's token pacing. */
  pacing?: 'immediate' | 'next-turn';
  /** Called after every accepted write, so a test can act mid-run (e.g. abort). */
  onWrite?: (sink: RecordingSink) => void;
  /** Refuse to start a step while another is open: steps are sequential on the chain. */
  strictSequential?: boolean;
}

/** A `StepSink` for agent tests: it records every call in `events` and what it accepted in `steps`. */
export class RecordingSink implements StepSink {
  readonly events: SinkEvent[] = [];
  readonly steps: RecordedStep[] = [];
  readonly #options: RecordingSinkOptions;
  readonly #waiters: Array<{ match: (event: SinkEvent) => boolean; resolve: () => void }> = [];

  constructor(options: RecordingSinkOptions = {}) {
    this.#options = options;
  }

  start(kind: StepKind, extra?: { tool?: string }): StepWriter {
    // Ids count accepted steps only, so a refused start does not shift later ids.
    const stepId = `step-${this.steps.length + 1}`;
    const event: Extract<SinkEvent, { type: 'start' }> = { type: 'start', stepId, kind };
    if (extra?.tool !== undefined) event.tool = extra.tool;
    const refusal = this.#startRefusal();
    if (refusal !== undefined) {
      this.#record({ ...event, refused: true });
      throw refusal;
    }
    const step: RecordedStep = { stepId, kind, writes: [], content: '', ended: false };
    if (extra?.tool !== undefined) step.tool = extra.tool;
    this.steps.push(step);
    this.#record(event);
    return {
      stepId,
      write: (text: string) => this.#write(step, text),
      end: (endExtra?: { result?: unknown }) => {
        step.ended = true;
        if (endExtra?.result !== undefined) step.result = endExtra.result;
        this.#record(endExtra?.result === undefined ? { type: 'end', stepId } : { type: 'end', stepId, result: endExtra.result });
      },
    };
  }

  notice(detail: string): void {
    this.#record({ type: 'notice', detail });
  }

  /** Recorded even after an abort, as the core's sink accepts it then (the tokens were spent). */
  usage(report: ModelCallReport): void {
    this.#record({ type: 'usage', report: { ...report, stepIds: [...report.stepIds] } });
  }

  /** Every model call's usage the agent reported, in order. */
  usageReports(): ModelCallReport[] {
    return this.events.flatMap((event) => (event.type === 'usage' ? [event.report] : []));
  }

  /** Every write call, refused ones included, in call order. */
  writes(): Extract<SinkEvent, { type: 'write' }>[] {
    return this.events.filter((event): event is Extract<SinkEvent, { type: 'write' }> => event.type === 'write');
  }

  /** Every start call, refused ones included, in call order. */
  starts(): Extract<SinkEvent, { type: 'start' }>[] {
    return this.events.filter((event): event is Extract<SinkEvent, { type: 'start' }> => event.type === 'start');
  }

  /** How many writes the sink accepted. */
  get writeCount(): number {
    return this.steps.reduce((count, step) => count + step.writes.length, 0);
  }

  notices(): string[] {
    return this.events.flatMap((event) => (event.type === 'notice' ? [event.detail] : []));
  }

  kinds(): StepKind[] {
    return this.steps.map((step) => step.kind);
  }

  last(kind: StepKind): RecordedStep | undefined {
    return this.steps.filter((step) => step.kind === kind).at(-1);
  }

  /** Kinds and contents, for compact assertions. */
  summary(): Array<{ kind: StepKind; content: string; tool?: string }> {
    return this.steps.map((step) => (step.tool === undefined ? { kind: step.kind, content: step.content } : { kind: step.kind, content: step.content, tool: step.tool }));
  }

  /** Resolves when an event matching `match` has been recorded. */
  waitFor(match: (event: SinkEvent) => boolean): Promise<void> {
    if (this.events.some(match)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  #startRefusal(): unknown {
    const { signal, strictSequential } = this.#options;
    if (signal?.aborted) return signal.reason;
    const open = strictSequential ? this.steps.find((step) => !step.ended) : undefined;
    if (open) return new Error(`Step ${open.stepId} (${open.kind}) is still open; steps are sequential.`);
    return undefined;
  }

  #write(step: RecordedStep, text: string): Promise<void> {
    const { signal, pacing = 'immediate', onWrite } = this.#options;
    const refusal = signal?.aborted ? signal.reason : step.ended ? new Error(`Write to the ended step ${step.stepId}.`) : undefined;
    if (refusal !== undefined) {
      this.#record({ type: 'write', stepId: step.stepId, text, refused: true });
      return Promise.reject(refusal);
    }
    step.writes.push(text);
    step.content += text;
    this.#record({ type: 'write', stepId: step.stepId, text });
    onWrite?.(this);
    if (pacing === 'immediate') return Promise.resolve();
    // Like the core's pacing: an abort while the write waits for its turn rejects it.
    return new Promise<void>((resolve, reject) => {
      setImmediate(() => (signal?.aborted ? reject(signal.reason) : resolve()));
    });
  }

  #record(event: SinkEvent): void {
    this.events.push(event);
    for (const waiter of [...this.#waiters]) {
      if (!waiter.match(event)) continue;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}
