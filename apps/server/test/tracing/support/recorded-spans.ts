import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { registerTracing } from '../../../src/tracing/register-tracing.js';

/**
 * The spans the code under test ends, kept in memory: a real provider with a simple processor
 * (each span is exported as it ends), registered as the process's provider until `stop`.
 */
export class RecordedSpans {
  readonly #exporter = new InMemorySpanExporter();
  readonly #provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: this.#exporter })] });
  readonly #unregister: () => void;

  private constructor() {
    this.#unregister = registerTracing(this.#provider);
  }

  static start(): RecordedSpans {
    return new RecordedSpans();
  }

  all(): ReadableSpan[] {
    return this.#exporter.getFinishedSpans();
  }

  named(name: string): ReadableSpan[] {
    return this.all().filter((span) => span.name === name);
  }

  /** The one span named `name` (fails when there are none or several). */
  one(name: string): ReadableSpan {
    const spans = this.named(name);
    if (spans.length !== 1) throw new Error(`Expected one span "${name}", got ${spans.length}: ${this.all().map((span) => span.name).join(', ')}`);
    return spans[0]!;
  }

  /** The spans whose parent is `parent`, in the order they ended. */
  childrenOf(parent: ReadableSpan): ReadableSpan[] {
    const { spanId } = parent.spanContext();
    return this.all().filter((span) => span.parentSpanContext?.spanId === spanId);
  }

  reset(): void {
    this.#exporter.reset();
  }

  async stop(): Promise<void> {
    await this.#provider.shutdown();
    this.#unregister();
  }
}
