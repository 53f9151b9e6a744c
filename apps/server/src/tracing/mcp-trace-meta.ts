import { context, propagation } from '@opentelemetry/api';

/**
 * The active trace context as MCP request `_meta` (W3C `traceparent`, and `tracestate` when there
 * is one), the convention MCP servers that trace read it by: a tool call's spans on the server
 * join the `execute_tool` span that made it. Nothing with tracing off (the API's no-op propagator
 * writes no field), so requests stay exactly as before.
 */
export function traceMeta(): { _meta?: Record<string, string> } {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length === 0 ? {} : { _meta: carrier };
}
