export { startTracing, TRACE_FLUSH_TIMEOUT_MS, type Tracing } from './start-tracing.js';
export { readTraceConfig, TraceConfigError, type TraceConfig } from '../config/tracing-config.js';
export { registerTracing } from './register-tracing.js';
export { startTurnSpan, TurnTrace, type TracedSession } from './turn-span.js';
export { traceToolCall } from './tool-call-span.js';
export { traceChatCompletion, type ChatCall } from './chat-completion-span.js';
export { traceMeta } from './mcp-trace-meta.js';
