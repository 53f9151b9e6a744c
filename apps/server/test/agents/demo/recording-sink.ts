import type { StepKind } from '@interthought/protocol';
import type { StepSink, StepWriter } from '../../../src/agents/agent.js';

/** One step as the sink saw it: what was started, every token written, and how it ended. */
export interface RecordedStep {
  stepId: string;
  kind: StepKind;
  tool?: string;
  tokens: string[];
  content: string;
  ended: boolean;
  result?: unknown;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The run was aborted.', 'AbortError');
}

/**
 * A `StepSink` for plain-call tests: it records every start, write and end, resolves writes at
 * once (no pacing), and honours the run's AbortSignal as the real sink does: after an abort,
 * `start` throws and `write` rejects with the abort reason. `onWrite` lets a test act mid-run.
 */
export class RecordingSink implements StepSink {
  readonly steps: RecordedStep[] = [];
  readonly notices: string[] = [];
  writes = 0;

  constructor(
    private readonly signal: AbortSignal,
    private readonly onWrite?: (sink: RecordingSink) => void,
  ) {}

  start(kind: StepKind, extra?: { tool?: string }): StepWriter {
    if (this.signal.aborted) throw abortError(this.signal);
    const step: RecordedStep = { stepId: `step-${this.steps.length + 1}`, kind, tokens: [], content: '', ended: false };
    if (extra?.tool !== undefined) step.tool = extra.tool;
    this.steps.push(step);
    return {
      stepId: step.stepId,
      write: (text: string) => {
        if (this.signal.aborted) return Promise.reject(abortError(this.signal));
        if (step.ended) return Promise.reject(new Error(`Step ${step.stepId} has ended.`));
        step.tokens.push(text);
        step.content += text;
        this.writes += 1;
        this.onWrite?.(this);
        return Promise.resolve();
      },
      end: (endExtra?: { result?: unknown }) => {
        step.ended = true;
        if (endExtra?.result !== undefined) step.result = endExtra.result;
      },
    };
  }

  notice(detail: string): void {
    this.notices.push(detail);
  }

  kinds(): StepKind[] {
    return this.steps.map((step) => step.kind);
  }

  last(kind: StepKind): RecordedStep | undefined {
    return this.steps.filter((step) => step.kind === kind).at(-1);
  }
}
