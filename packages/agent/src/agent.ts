import type { SessionOptions, Step, StepKind } from '@interthought/protocol';
import type { AgentToolbox } from './agent-tools.js';

/** Whether an agent can run now (an LLM agent without endpoint configuration cannot). */
/**
 * Whether an agent can run now; when not, why, in English (`reason`) and, where the agent says it
 * in other languages, by base language (`reasons`, e.g. `{ zh: … }`) for `GET /api/agents?lang=`.
 */
export type AgentAvailability = { available: true } | { available: false; reason: string; reasons?: Readonly<Record<string, string>> };

/** One step being streamed by an agent. */
export interface StepWriter {
  readonly stepId: string;
  /**
   * Append text. Resolves when the agent may go on: after the session's token pacing, and
   * while the session is paused it waits. Rejects with an AbortError once the run is aborted.
   */
  write(text: string): Promise<void>;
  /**
   * While the server has more events waiting to be sent than it wants, a promise that resolves
   * once they are out (rejects once the run is aborted); `undefined` when it takes more now. An
   * agent that issues many writes without awaiting each checks it between them, as a stream
   * writer awaits `ready`; awaiting each `write` honours it already.
   */
  backpressure?(): Promise<void> | undefined;
  /**
   * Finish the step. `result` is the tool's structured output, for observations. For a tool call,
   * `waitsForApproval` is the agent's own word on whether it waits for the user, in place of the
   * session's approval policy: an agent whose tools run on its own side knows whether it stopped to
   * ask (an AG-UI agent's interrupt); absent, the policy decides.
   */
  end(extra?: { result?: unknown; waitsForApproval?: boolean }): void;
}

/** Tokens a model call used, as its endpoint reported them (the protocol's `Usage` without its cost). */
export interface ReportedTokens {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens?: number;
  cachedTokens?: number;
}

/**
 * What one model call used, as its endpoint reported it (PROTOCOL.md §22 "Usage and cost"). The
 * core prices it and records it; an agent reports each call once, and never invents numbers.
 */
export interface ModelCallReport {
  /** The model the call asked for. */
  model: string;
  /** Tokens as the endpoint reported them; the core adds the cost. */
  usage: ReportedTokens;
  /** From sending the request to the first piece of the answer. */
  timeToFirstTokenMs?: number;
  /** From sending the request to the end of the answer. */
  durationMs?: number;
  /** The steps this call produced, in order (empty when it produced none). */
  stepIds: readonly string[];
}

/** A sub-agent's scope opened by `StepSink.openSubagent` (PROTOCOL.md §24): what its steps are written through. */
export interface SubagentSink extends StepSink {
  /** The delegate call's step id: the scope every step written here carries. */
  readonly scope: string;
  /** The sub-agent ended (`subagent.status`); its delegate call's observation is the parent's to write. */
  finish(outcome: { status: 'completed' | 'failed' | 'cancelled'; error?: string }): void;
}

/** How an agent streams steps into its session. Every step starts on the head of the chain (of its scope). */
export interface StepSink {
  /** Start a step of `kind` (`tool` names the tool of a tool_call or observation). */
  start(kind: StepKind, extra?: { tool?: string }): StepWriter;
  /**
   * Report a transient condition the user should see (e.g. "rate limited, retrying in 2 s");
   * sent as a `session.status` detail, the status unchanged.
   */
  notice(detail: string): void;
  /**
   * Record a model call's usage, once, after its steps. Unlike writing, it is accepted from a run
   * that was stopped meanwhile (a correction, an approval wait): the tokens were spent all the same.
   */
  usage(report: ModelCallReport): void;
  /**
   * Open the scope of a sub-agent this run's own agent runs (an AG-UI agent's `SUBAGENT_STARTED`):
   * `callStepId` is a completed `delegate` tool_call of this sink's chain. Sends `subagent.started`;
   * steps written through the returned sink carry the scope. Sub-agents the server runs (the
   * `delegate` tool) are opened by the server itself. Absent on servers without sub-agents.
   */
  openSubagent?(call: { callStepId: string; name: string; agent: string; task: string }): SubagentSink;
}

/** Everything an agent gets for one run. A run continues the chain: it ends with the session's final answer. */
export interface AgentRunContext {
  /** The session the run belongs to (for logs, and for agents that run elsewhere and must name it). */
  sessionId?: string;
  task: string;
  /**
   * The current chain, root first: completed and corrected steps (a corrected step has
   * `status: 'corrected'`, `correctionOf` and `correction.note`). The agent continues after its last step.
   */
  chain: readonly Step[];
  options: SessionOptions;
  /**
   * The guidance of the chain's lessons step (PROTOCOL.md §26.4), as a person may have corrected it,
   * for an agent that declares `lessons`: the agent follows it (the `openai` agent as a system
   * message section). Absent when there is none or a person dropped it. The chain still holds the
   * step itself (a `thought` with `lessons`): it is the server's, not the agent's, so it is no turn of the agent's history.
   */
  lessons?: string;
  tools: AgentToolbox;
  sink: StepSink;
  /** Aborted on a correction, cancel, or shutdown. The agent stops promptly and passes it to tools and HTTP. */
  signal: AbortSignal;
}

/** The models an agent offers a session (`options.model`, PROTOCOL.md §9.1 "`session.create`", its part "The session's model"). */
export interface AgentModels {
  /** The model of a session that names none; one of `offered`. */
  readonly default: string;
  /** The models a session may name, the default among them, in the picker's order. */
  readonly offered: readonly string[];
  /** Whether a model not offered is taken too (a single endpoint whose models the server does not know). */
  readonly any?: boolean;
}

/** An agent kind, registered by name. */
export interface Agent {
  readonly name: string;
  /** One line for the agent picker, in English. */
  readonly description: string;
  /** The same line in other languages, by base language (`{ zh: … }`): the picker shows the user's (PROTOCOL.md §18). */
  readonly descriptions?: Readonly<Record<string, string>>;
  /** The models a session may pick; absent: the agent takes no model choice and ignores `options.model`. */
  readonly models?: AgentModels;
  /**
   * The agents (registered names) this agent may hand parts of its task to with the `delegate`
   * tool (PROTOCOL.md §24.8), besides itself: a delegate call's `agent` names one of them, or is
   * absent for the agent itself. Declaring any also offers `delegate` to the agent's model in
   * `tools.list()`; without, `tools.get("delegate")` still finds it.
   */
  readonly subagents?: readonly string[];
  /**
   * The agent learns from earlier corrections (`"lessons": true` in the agents file, PROTOCOL.md
   * §26.4): a run starts with a lessons step of up to `max` matching corrections, and `lessons` in its context.
   */
  readonly lessons?: { readonly max: number };
  availability(): AgentAvailability;
  /** Stream steps until a final answer. Throwing fails the session with the error's message (a `RunInterruptedError` interrupts it instead). */
  run(context: AgentRunContext): Promise<void>;
}
