/** An `OTEL_*` variable has a value tracing cannot use; the message names it and says what it expects. */
export class TraceConfigError extends Error {
  override readonly name = 'TraceConfigError';
}
