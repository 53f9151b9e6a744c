import type { StepKind } from '@interthought/protocol';
import type { StepSink, StepWriter } from '../../../../src/agents/agent.js';

export type SinkEvent =
  | { type: 'start'; stepId: string; kind: StepKind; tool?: string }
  | { type: 'write'; stepId: string; text: string }
  | { type: 'end'; stepId: string; result?: unknown }
  | { type: 'notice'; detail: string };

/** A step as the sink saw it. */
export interface RecordedStep {
  stepId: string;
  kind: StepKind;
  tool?: string;
  writes: string[];
  content: string;
  ended: boolean;
  result?: unknown;
}

/**
 * A StepSink that records everything in order. Writes resolve at once, or reject with the
 * signal's reason once it aborts (as the session's sink does). Starting a step while another is
 * still open throws, because steps are sequential on the chain.
 */
export class RecordingSink implements StepSink {
  readonly events: SinkEvent[] = [];
  readonly #steps: RecordedStep[] = [];
  readonly #waiters: Array<{ match: (event: SinkEvent) => boolean; resolve: () => void }> = [];

  constructor(private readonly signal?: AbortSignal) {}

  start(kind: StepKind, extra?: { tool?: string }): StepWriter {
    const open = this.#steps.find((step) => !step.ended);
    if (open) throw new Error(`Step ${open.stepId} (${open.kind}) is still open; steps are sequential.`);
    const step: RecordedStep = { stepId: `step-${this.#steps.length + 1}`, kind, writes: [], content: '', ended: false };
    if (extra?.tool !== undefined) step.tool = extra.tool;
    this.#steps.push(step);
    this.#record(extra?.tool === undefined ? { type: 'start', stepId: step.stepId, kind } : { type: 'start', stepId: step.stepId, kind, tool: extra.tool });
    return {
      stepId: step.stepId,
      write: async (text: string) => {
        this.signal?.throwIfAborted();
        if (step.ended) throw new Error(`Write to the ended step ${step.stepId}.`);
        step.writes.push(text);
        step.content += text;
        this.#record({ type: 'write', stepId: step.stepId, text });
      },
      end: (extra?: { result?: unknown }) => {
        step.ended = true;
        if (extra?.result !== undefined) step.result = extra.result;
        this.#record({ type: 'end', stepId: step.stepId, result: extra?.result });
      },
    };
  }

  notice(detail: string): void {
    this.#record({ type: 'notice', detail });
  }

  steps(): RecordedStep[] {
    return this.#steps;
  }

  /** Kinds and contents, for compact assertions. */
  summary(): Array<{ kind: StepKind; content: string; tool?: string }> {
    return this.#steps.map((step) => (step.tool === undefined ? { kind: step.kind, content: step.content } : { kind: step.kind, content: step.content, tool: step.tool }));
  }

  notices(): string[] {
    return this.events.flatMap((event) => (event.type === 'notice' ? [event.detail] : []));
  }

  /** Resolves when an event matching `match` has been recorded. */
  waitFor(match: (event: SinkEvent) => boolean): Promise<void> {
    if (this.events.some(match)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
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
