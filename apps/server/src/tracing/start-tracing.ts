import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, TracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { SERVER_VERSION } from '../config/server-package.js';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from './attributes.js';
import { registerTracing } from './register-tracing.js';
import { readTraceConfig, type TraceConfig, type TraceExporterConfig } from '../config/tracing-config.js';

type Env = Record<string, string | undefined>;

/** How long a stop waits for the last spans to be sent. */
export const TRACE_FLUSH_TIMEOUT_MS = 5_000;

/** The process's tracing, as `main.ts` holds it. */
export interface Tracing {
  /** One line for the start-up log, saying where spans go; undefined when tracing is off. */
  readonly summary: string | undefined;
  /** Send the spans still pending and stop tracing (waits at most `timeoutMs`); nothing to do when off. */
  shutdown(timeoutMs?: number): Promise<void>;
}

const OFF: Tracing = { summary: undefined, shutdown: async () => undefined };

function processorFor(exporter: TraceExporterConfig, config: TraceConfig): SpanProcessor {
  if (exporter.kind === 'console') return new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() });
  // The URL is passed as read here; headers, timeout and compression the exporter reads from OTEL_EXPORTER_OTLP_*.
  return new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: exporter.url }), ...config.batch });
}

function describe(config: TraceConfig): string {
  const where = config.exporters.map((exporter) => (exporter.kind === 'otlp' ? `${exporter.url} (OTLP/HTTP, JSON)` : 'the console'));
  return `Traces of every run go to ${where.join(' and ')} as service "${config.resourceAttributes[ATTR_SERVICE_NAME]}".`;
}

/**
 * Set up tracing from the `OTEL_*` variables (see `readTraceConfig`). When no exporter is asked
 * for, no provider is registered: spans stay the API's no-ops and cost a function call each.
 * Throws a `TraceConfigError` for a value it cannot use.
 */
export function startTracing(env: Env = process.env): Tracing {
  const config = readTraceConfig(env);
  if (config === undefined) return OFF;
  const provider = new TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_VERSION]: SERVER_VERSION, ...config.resourceAttributes })),
    sampler: config.sampler,
    spanProcessors: config.exporters.map((exporter) => processorFor(exporter, config)),
  });
  const unregister = registerTracing(provider);
  return {
    summary: describe(config),
    async shutdown(timeoutMs = TRACE_FLUSH_TIMEOUT_MS) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      });
      // A receiver that is down must not hold the stop: what it did not take in time is dropped.
      await Promise.race([provider.shutdown().catch(() => undefined), deadline]);
      clearTimeout(timer);
      unregister();
    },
  };
}

