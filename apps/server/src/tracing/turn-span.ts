import { ROOT_CONTEXT, SpanKind, context, createContextKey, isSpanContextValid, trace, type Context, type Span } from '@opentelemetry/api';
import {
  ATTR_AGENT,
  ATTR_CORRECTION,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_REVISION,
  ATTR_SESSION_ID,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from './attributes.js';
import type { TracedSession, TurnTrace as TracedTurn } from '../core/ports/turn-tracer.js';
import { pendingToolCall } from './pending-tool-call.js';
import { endAborted, endWithError, tracer } from './tracer.js';

/** What a turn's span reads of its session: when the run starts, and when one of its tools runs (the core's port). */
export type { TracedSession } from '../core/ports/turn-tracer.js';

/** What a tool span learns from the turn it runs in. */
export interface ActiveTurn {
  /** The `tool_call` step an execution of `tool` answers now. */
  pendingCall(tool: string): string | undefined;
}

const TURN_KEY = createContextKey('interthought.turn');

/** The turn whose span is active (undefined outside a traced run). */
export function activeTurn(ctx: Context = context.active()): ActiveTurn | undefined {
  return ctx.getValue(TURN_KEY) as ActiveTurn | undefined;
}

/** One run of an agent as a span: `invoke_agent <agent>`, with the model and tool calls as its children. */
export class TurnTrace implements TracedTurn {
  constructor(
    private readonly ctx: Context,
    private readonly span: Span | undefined,
  ) {}

  /** Run the agent in the turn's context, so the spans it starts are the turn's children. */
  within<T>(work: () => Promise<T>): Promise<T> {
    return context.with(this.ctx, work);
  }

  /** End the span: aborted when `signal` is (a correction, a cancel …), failed with `failure`, else completed. */
  end(failure: { error: unknown } | undefined, signal: AbortSignal): void {
    if (this.span === undefined) return;
    if (signal.aborted) endAborted(this.span, signal.reason);
    else if (failure !== undefined) endWithError(this.span, failure.error);
    else this.span.end();
  }
}

/**
 * With tracing off there is no context to carry: the run only leaves any context it inherited
 * (the API's no-op context manager makes that a plain call).
 */
const UNTRACED = new TurnTrace(ROOT_CONTEXT, undefined);

/**
 * Start the span of a run of `agent` on `session`. Each turn is a trace of its own (a root span):
 * a run starts on a later tick of whatever caused it (a socket frame, the previous turn's end),
 * whose context says nothing about it.
 */
export function startTurnSpan(session: TracedSession, agent: string): TurnTrace {
  const span = tracer().startSpan(`${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${agent}`, {
    kind: SpanKind.INTERNAL,
    root: true,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      [ATTR_GEN_AI_AGENT_NAME]: agent,
      [ATTR_GEN_AI_CONVERSATION_ID]: session.id,
      [ATTR_SESSION_ID]: session.id,
      [ATTR_AGENT]: agent,
      [ATTR_REVISION]: session.state.session.revision,
      // A correction puts its step at the head of the chain; the run that follows continues from it.
      [ATTR_CORRECTION]: session.head()?.status === 'corrected',
    },
  });
  if (!span.isRecording()) {
    if (!isSpanContextValid(span.spanContext())) return UNTRACED;
    // Sampled out: the children still see their parent's decision and are dropped with it.
    return new TurnTrace(trace.setSpan(ROOT_CONTEXT, span), undefined);
  }
  const turn: ActiveTurn = { pendingCall: (tool) => pendingToolCall(session.state, tool) };
  return new TurnTrace(trace.setSpan(ROOT_CONTEXT, span).setValue(TURN_KEY, turn), span);
}
