import type { StepWriter } from '../agent.js';
import type { RunOutbox } from './run-outbox.js';

/** What a step writer needs of its run. */
export interface StepOwner {
  readonly runId: string;
  readonly signal: AbortSignal;
  readonly outbox: RunOutbox;
  ended(writer: WorkerStepWriter, result: unknown): void;
}

/**
 * One step of a worker's run. Its id is the worker's `ref` for it (what `usage` names); the
 * server maps refs to the session's step ids. Writes go out in order through the run's outbox.
 */
export class WorkerStepWriter implements StepWriter {
  #ended = false;

  constructor(
    readonly stepId: string,
    readonly kind: string,
    private readonly owner: StepOwner,
  ) {}

  get isEnded(): boolean {
    return this.#ended;
  }

  write(text: string): Promise<void> {
    const { signal, outbox, runId } = this.owner;
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#ended) return Promise.reject(new Error(`Step ${this.stepId} has ended; start a new step to write more.`));
    if (typeof text !== 'string') return Promise.reject(new TypeError('StepWriter.write takes a string.'));
    if (text.length === 0) return outbox.drained();
    return outbox.pushAwaited({ type: 'step.delta', runId, ref: this.stepId, text });
  }

  backpressure(): Promise<void> | undefined {
    const { signal, outbox } = this.owner;
    if (signal.aborted) return Promise.reject(signal.reason);
    return outbox.blocked ? outbox.drained() : undefined;
  }

  end(extra?: { result?: unknown }): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.owner.signal.aborted) return;
    this.owner.ended(this, extra?.result);
  }

  /** The server ended it (another step started, or a `tool.run` wrote its call). */
  markEnded(): void {
    this.#ended = true;
  }
}
