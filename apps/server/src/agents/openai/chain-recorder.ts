import type { Step, StepKind } from '@interthought/protocol';
import type { ModelCallReport, StepSink, StepWriter } from '@interthought/agent';

/** What the agent needs to know of a step on the chain to rebuild the model's message history. */
export type ChainStep = Pick<Step, 'stepId' | 'kind' | 'content' | 'status' | 'tool' | 'correctionOf' | 'correction' | 'lessons'>;

/**
 * A StepSink that passes everything to the session's sink and also appends each step it starts
 * to `chain`, so the run's own steps (including observations streamed by `observeTool`) feed the
 * next model turn exactly as the chain will hold them.
 */
export class ChainRecorder implements StepSink {
  constructor(
    private readonly sink: StepSink,
    readonly chain: ChainStep[],
  ) {}

  start(kind: StepKind, extra?: { tool?: string }): StepWriter {
    const writer = this.sink.start(kind, extra);
    const step: ChainStep = { stepId: writer.stepId, kind, content: '', status: 'streaming' };
    if (extra?.tool !== undefined) step.tool = extra.tool;
    this.chain.push(step);
    return {
      stepId: writer.stepId,
      write(text: string): Promise<void> {
        step.content += text;
        return writer.write(text);
      },
      end(endExtra?: { result?: unknown }): void {
        step.status = 'completed';
        writer.end(endExtra);
      },
    };
  }

  notice(detail: string): void {
    this.sink.notice(detail);
  }

  usage(report: ModelCallReport): void {
    this.sink.usage(report);
  }

  /** The ids of the steps started since the chain had `length` steps: what a model call produced. */
  stepIdsSince(length: number): string[] {
    return this.chain.slice(length).map((step) => step.stepId);
  }
}
