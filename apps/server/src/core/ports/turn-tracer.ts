import type { SessionState, Step } from '@interthought/protocol';

/** What a turn's trace reads of its session. */
export interface TracedSession {
  readonly id: string;
  readonly state: Pick<SessionState, 'session' | 'chain' | 'steps'>;
  head(): Step | undefined;
}

/** One run of an agent, traced: the agent runs within it, and it ends with the run. */
export interface TurnTrace {
  within<T>(work: () => Promise<T>): Promise<T>;
  end(failure: { error: unknown } | undefined, signal: AbortSignal): void;
}

/** How the core traces a run (a port: the server plugs in OpenTelemetry spans). */
export type TraceTurn = (session: TracedSession, agent: string) => TurnTrace;

/** No tracing: the work runs as it is. */
export const UNTRACED: TraceTurn = () => ({ within: (work) => work(), end: () => undefined });
