import { describe, expect, it } from 'vitest';
import { readTraceConfig, TraceConfigError } from '../../src/config/tracing-config.js';

function problemOf(env: Record<string, string>): string {
  try {
    readTraceConfig(env);
  } catch (error) {
    if (error instanceof TraceConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a TraceConfigError');
}

describe('tracing configuration from OTEL_* variables', () => {
  it('is off when no exporter is asked for (no endpoint, no OTEL_TRACES_EXPORTER)', () => {
    expect(readTraceConfig({})).toBeUndefined();
    expect(readTraceConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
  });

  it('is off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, whatever else is set', () => {
    expect(readTraceConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBeUndefined();
    expect(readTraceConfig({ OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'otlp,console' })).toBeUndefined();
    expect(readTraceConfig({ OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'console' })?.exporters).toEqual([{ kind: 'console' }]);
  });

  it('exports over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, or to the traces endpoint as given', () => {
    expect(readTraceConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })?.exporters).toEqual([{ kind: 'otlp', url: 'http://collector:4318/v1/traces' }]);
    expect(readTraceConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example/base/' })?.exporters).toEqual([{ kind: 'otlp', url: 'https://otel.example/base/v1/traces' }]);
    const both = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom' };
    expect(readTraceConfig(both)?.exporters).toEqual([{ kind: 'otlp', url: 'http://traces:9999/custom' }]);
  });

  it('sends to localhost:4318 when OTEL_TRACES_EXPORTER=otlp names no endpoint, and to the console too when asked', () => {
    expect(readTraceConfig({ OTEL_TRACES_EXPORTER: 'otlp, console' })?.exporters).toEqual([
      { kind: 'otlp', url: 'http://localhost:4318/v1/traces' },
      { kind: 'console' },
    ]);
  });

  it('names the service from OTEL_SERVICE_NAME, then OTEL_RESOURCE_ATTRIBUTES, then "interthought"', () => {
    expect(readTraceConfig({ OTEL_TRACES_EXPORTER: 'console' })?.resourceAttributes).toEqual({ 'service.name': 'interthought' });
    const attributes = { OTEL_TRACES_EXPORTER: 'console', OTEL_RESOURCE_ATTRIBUTES: 'service.name=chains,deployment.environment.name=staging%20eu' };
    expect(readTraceConfig(attributes)?.resourceAttributes).toEqual({ 'service.name': 'chains', 'deployment.environment.name': 'staging eu' });
    expect(readTraceConfig({ ...attributes, OTEL_SERVICE_NAME: 'interthought-eu' })?.resourceAttributes['service.name']).toBe('interthought-eu');
  });

  it('batches with the specification defaults unless OTEL_BSP_* says otherwise', () => {
    expect(readTraceConfig({ OTEL_TRACES_EXPORTER: 'otlp' })?.batch).toEqual({ scheduledDelayMillis: 5000, exportTimeoutMillis: 30000, maxQueueSize: 2048, maxExportBatchSize: 512 });
    expect(readTraceConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_BSP_SCHEDULE_DELAY: '100' })?.batch.scheduledDelayMillis).toBe(100);
  });

  it('takes the samplers the specification names', () => {
    for (const sampler of ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']) {
      expect(readTraceConfig({ OTEL_TRACES_EXPORTER: 'console', OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: '0.25' })?.sampler).toBeDefined();
    }
  });

  it('refuses values it cannot use, naming the variable', () => {
    expect(problemOf({ OTEL_TRACES_EXPORTER: 'zipkin,otlp' })).toContain('OTEL_TRACES_EXPORTER names "zipkin"');
    expect(problemOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toContain('OTEL_EXPORTER_OTLP_ENDPOINT must use http or https');
    expect(problemOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' })).toContain('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http(s) URL');
    expect(problemOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=grpc');
    expect(problemOf({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' })).toContain('OTEL_TRACES_SAMPLER must be one of');
    expect(problemOf({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toContain('OTEL_TRACES_SAMPLER_ARG must be a ratio');
    expect(problemOf({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_BSP_MAX_QUEUE_SIZE: '10', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '20' })).toContain('must not exceed OTEL_BSP_MAX_QUEUE_SIZE');
    expect(problemOf({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_BSP_SCHEDULE_DELAY: 'soon' })).toContain('OTEL_BSP_SCHEDULE_DELAY must be a whole number');
  });
});
