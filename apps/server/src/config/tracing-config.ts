import type { Sampler } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '../tracing/attributes.js';
import { TraceConfigError } from './tracing-config-error.js';
import { readSampler } from './tracing-sampler.js';

export { TraceConfigError };

type Env = Record<string, string | undefined>;

/** Where finished spans go. */
export type TraceExporterConfig = { kind: 'otlp'; url: string } | { kind: 'console' };

/** How the batch span processor sends (OTEL_BSP_*, with the specification's defaults). */
export interface BatchConfig {
  scheduledDelayMillis: number;
  exportTimeoutMillis: number;
  maxQueueSize: number;
  maxExportBatchSize: number;
}

export interface TraceConfig {
  exporters: TraceExporterConfig[];
  /** Resource attributes from OTEL_RESOURCE_ATTRIBUTES, `service.name` set. */
  resourceAttributes: Record<string, string>;
  batch: BatchConfig;
  sampler: Sampler;
}

export const DEFAULT_SERVICE_NAME = 'interthought';
const EXPORTERS = ['otlp', 'console', 'none'] as const;
const DEFAULT_OTLP_BASE = 'http://localhost:4318/';

/** Unset and blank are the same. */
function readText(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/**
 * Read the tracing configuration from the standard OpenTelemetry variables; `undefined` means
 * tracing is off. Unlike the specification's default (`otlp` to localhost), nothing is exported
 * unless asked for: an OTLP endpoint, or OTEL_TRACES_EXPORTER naming an exporter. OTEL_SDK_DISABLED=true
 * turns it off whatever else is set.
 */
export function readTraceConfig(env: Env): TraceConfig | undefined {
  if (readText(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const kinds = readExporterKinds(env);
  if (kinds.length === 0) return undefined;
  checkProtocol(env);
  const exporters = kinds.map((kind): TraceExporterConfig => (kind === 'otlp' ? { kind, url: otlpTracesUrl(env) } : { kind }));
  return { exporters, resourceAttributes: readResourceAttributes(env), batch: readBatch(env), sampler: readSampler(env) };
}

function readExporterKinds(env: Env): Array<'otlp' | 'console'> {
  const listed = readText(env, 'OTEL_TRACES_EXPORTER');
  if (listed === undefined) {
    const endpoint = readText(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? readText(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    return endpoint === undefined ? [] : ['otlp'];
  }
  const names = [...new Set(listed.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean))];
  const unknown = names.filter((name) => !(EXPORTERS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new TraceConfigError(`OTEL_TRACES_EXPORTER names ${unknown.map((name) => `"${name}"`).join(', ')}; Interthought exports traces with otlp (OTLP over HTTP) or console, or none.`);
  }
  return names.filter((name): name is 'otlp' | 'console' => name !== 'none');
}

/** The exporter sends OTLP/HTTP with JSON bodies: a gRPC receiver cannot take them. */
function checkProtocol(env: Env): void {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = readText(env, name);
    if (protocol === undefined) continue;
    if (protocol === 'grpc') {
      throw new TraceConfigError(`${name}=grpc: Interthought sends traces over OTLP/HTTP (JSON). Point it at the receiver's HTTP port (4318) and set ${name}=http/json, or unset it.`);
    }
    return;
  }
}

/** The traces endpoint: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + `v1/traces`. */
export function otlpTracesUrl(env: Env): string {
  const specific = readText(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (specific !== undefined) return httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', specific).href;
  const base = readText(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const root = base === undefined ? new URL(DEFAULT_OTLP_BASE) : httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base);
  if (!root.pathname.endsWith('/')) root.pathname += '/';
  return new URL('v1/traces', root).href;
}

function httpUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TraceConfigError(`${name} must be an http(s) URL such as http://localhost:4318, got "${value}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TraceConfigError(`${name} must use http or https, got "${value}".`);
  return url;
}

/** OTEL_RESOURCE_ATTRIBUTES (`key=value,…`, values percent-encoded), with OTEL_SERVICE_NAME over its `service.name`. */
function readResourceAttributes(env: Env): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of (readText(env, 'OTEL_RESOURCE_ATTRIBUTES') ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    const raw = pair.slice(at + 1).trim();
    try {
      attributes[key] = decodeURIComponent(raw);
    } catch {
      throw new TraceConfigError(`OTEL_RESOURCE_ATTRIBUTES has a value that is not percent-encoded for "${key}": "${raw}".`);
    }
  }
  attributes[ATTR_SERVICE_NAME] = readText(env, 'OTEL_SERVICE_NAME') ?? attributes[ATTR_SERVICE_NAME] ?? DEFAULT_SERVICE_NAME;
  return attributes;
}

function readBatch(env: Env): BatchConfig {
  const batch = {
    scheduledDelayMillis: readInteger(env, 'OTEL_BSP_SCHEDULE_DELAY', 5_000, 0),
    exportTimeoutMillis: readInteger(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000, 0),
    maxQueueSize: readInteger(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2_048, 1),
    maxExportBatchSize: readInteger(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1),
  };
  if (batch.maxExportBatchSize > batch.maxQueueSize) {
    throw new TraceConfigError(`OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${batch.maxExportBatchSize}) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (${batch.maxQueueSize}).`);
  }
  return batch;
}

function readInteger(env: Env, name: string, fallback: number, min: number): number {
  const value = readText(env, name);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min) throw new TraceConfigError(`${name} must be a whole number of at least ${min}, got "${value}".`);
  return number;
}
