import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One OTLP/HTTP export as it arrived. */
export interface ReceivedExport {
  path: string;
  headers: IncomingHttpHeaders;
  body: OtlpTraces;
}

/** The part of an OTLP JSON `ExportTraceServiceRequest` the tests read. */
export interface OtlpTraces {
  resourceSpans: Array<{
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: Array<{ scope: { name: string; version?: string }; spans: OtlpSpan[] }>;
  }>;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: OtlpAttribute[];
  status?: { code?: number; message?: string };
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number; arrayValue?: unknown };
}

/**
 * An OTLP/HTTP trace receiver on a local port, as a collector's :4318 would take exports:
 * `POST /v1/traces` with a JSON body (what @opentelemetry/exporter-trace-otlp-http sends),
 * answered 200 with an empty `ExportTraceServiceResponse`.
 */
export class OtlpReceiver {
  readonly exports: ReceivedExport[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        if (req.method !== 'POST' || req.headers['content-type'] !== 'application/json') {
          res.writeHead(415).end();
          return;
        }
        receiver.exports.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(parts).toString('utf8')) as OtlpTraces });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Every span received, with its resource's attributes. */
  spans(): Array<OtlpSpan & { resource: Record<string, unknown> }> {
    return this.exports.flatMap(({ body }) =>
      body.resourceSpans.flatMap((resourceSpans) =>
        resourceSpans.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ ...span, resource: attributesOf(resourceSpans.resource.attributes) }))),
      ),
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** OTLP JSON attributes as a plain object (ints arrive as strings or numbers, per the JSON mapping). */
export function attributesOf(attributes: readonly OtlpAttribute[]): Record<string, unknown> {
  return Object.fromEntries(
    attributes.map(({ key, value }) => [key, value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.boolValue ?? value.doubleValue ?? value.arrayValue]),
  );
}
