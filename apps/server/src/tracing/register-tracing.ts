import { context, propagation, trace, type TracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * Make `provider` the process's tracer provider, with an async-local context (a run's spans find
 * their turn across its awaits) and W3C trace-context propagation (what MCP requests carry).
 * Returns the undo, which puts the API's no-ops back.
 */
export function registerTracing(provider: TracerProvider): () => void {
  if (!trace.setGlobalTracerProvider(provider)) throw new Error('A tracer provider is registered already: unregister it first.');
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  return () => {
    trace.disable();
    propagation.disable();
    context.disable();
  };
}
