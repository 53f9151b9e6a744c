import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ModelCallReport, ReportedTokens } from '@interthought/agent';
import { carriesAnswer, usageOfChunk } from './chunk-usage.js';

/**
 * Measures one model call (PROTOCOL.md §22.1 "What a call records"): when its answered request
 * was sent, when the first piece of the answer and the last chunk came, and the usage the
 * endpoint reported. A retried request starts the clock again: the wait before a retry is the
 * endpoint refusing, not the model thinking.
 */
export class ModelCallMeter {
  #sentAt: number | undefined;
  #firstTokenAt: number | undefined;
  #lastChunkAt: number | undefined;
  #tokens: ReportedTokens | undefined;

  constructor(
    readonly model: string,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A request of this call is being sent (again, after a refusal). */
  sent(): void {
    this.#sentAt = this.now();
    this.#firstTokenAt = undefined;
    this.#lastChunkAt = undefined;
    this.#tokens = undefined;
  }

  observe(chunk: ChatCompletionChunk): void {
    const at = this.now();
    this.#lastChunkAt = at;
    if (this.#firstTokenAt === undefined && carriesAnswer(chunk)) this.#firstTokenAt = at;
    this.#tokens = usageOfChunk(chunk) ?? this.#tokens;
  }

  /** The call's report for the steps it produced, or undefined when the endpoint reported no usage. */
  report(stepIds: readonly string[]): ModelCallReport | undefined {
    if (this.#tokens === undefined) return undefined;
    const report: ModelCallReport = { model: this.model, usage: { ...this.#tokens }, stepIds: [...stepIds] };
    if (this.#sentAt !== undefined && this.#firstTokenAt !== undefined) report.timeToFirstTokenMs = this.#firstTokenAt - this.#sentAt;
    if (this.#sentAt !== undefined && this.#lastChunkAt !== undefined) report.durationMs = this.#lastChunkAt - this.#sentAt;
    return report;
  }
}
