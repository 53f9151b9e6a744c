import { SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { SERVER_VERSION } from '../config/server-package.js';
import { ATTR_ABORT_REASON, ATTR_ERROR_TYPE, EVENT_ABORTED } from './attributes.js';

/** The instrumentation scope of every Interthought span. */
export const TRACER_NAME = '@interthought/server';

/**
 * The tracer of the global API. With no provider registered (tracing off) it is the API's no-op
 * tracer: a span costs a call that returns a shared kind of non-recording span, nothing is kept.
 * Looked up per span rather than cached, so a provider registered later (or by a test) is used.
 */
export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME, SERVER_VERSION);
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** End `span` for a failure: status ERROR with the message, `error.type`, and the exception event. */
export function endWithError(span: Span, error: unknown): void {
  const message = messageOf(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : typeof error);
  span.recordException(error instanceof Error ? error : message);
  span.end();
}

/** End `span` for work the session aborted: no error (a correction or a cancel is no failure), the reason as an event. */
export function endAborted(span: Span, reason: unknown): void {
  span.addEvent(EVENT_ABORTED, { [ATTR_ABORT_REASON]: messageOf(reason) });
  span.end();
}

/** End `span` for `error`: aborted when `signal` was, failed otherwise. */
export function endWithFailure(span: Span, error: unknown, signal: AbortSignal): void {
  if (signal.aborted) endAborted(span, signal.reason);
  else endWithError(span, error);
}
