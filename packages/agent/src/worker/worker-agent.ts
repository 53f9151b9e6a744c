import type { AgentErrorFrame, PendingCall } from '@interthought/protocol';
import type { AgentAvailability, AgentRunContext } from '../agent.js';
import type { AgentToolbox } from '../agent-tools.js';

/** What a server tool run for the worker gave (`tool.result`, PROTOCOL.md Part II §A6.2). */
export interface ServerToolResult {
  /** False when the tool itself failed; its observation says so too. */
  ok: boolean;
  output?: unknown;
  error?: string;
  /** The observation's text. */
  text: string;
  /** The session's ids of the `tool_call` and `observation` steps the server wrote. */
  callStepId: string;
  observationStepId: string;
}

/** A run as a worker gives it to an agent: the one `AgentRunContext`, plus what only a remote run has. */
export interface WorkerRunContext extends AgentRunContext {
  /** The server's id of the run (for logs). */
  readonly runId: string;
  /** The worker's own tool call the chain ends in, cleared to run (`run.start.call`); the chain says the same. */
  readonly call?: PendingCall;
  /**
   * Run one of the server's tools (built in or MCP; `GET /api/tools` lists them). The server writes
   * the `tool_call` and `observation` steps itself. Rejects with a `ServerToolError` for an unknown
   * tool or bad input, and with the abort reason when the call waits for approval (the run ends).
   */
  runServerTool(tool: string, input: unknown): Promise<ServerToolResult>;
}

/**
 * An agent a worker serves. Every `Agent` is one: its `run` gets a `WorkerRunContext`, which is an
 * `AgentRunContext`, so an agent written for the server's own process runs unchanged.
 */
export interface WorkerAgent {
  readonly name: string;
  readonly description: string;
  availability?(): AgentAvailability;
  run(context: WorkerRunContext): Promise<void>;
}

/** An agent with what the worker gives it: served under `name` (default the agent's), with `tools` (default the worker's). */
export interface WorkerAgentEntry {
  agent: WorkerAgent;
  name?: string;
  description?: string;
  tools?: AgentToolbox;
}

/** The server refused a `tool.run`: `TOOL_NOT_FOUND` or `BAD_TOOL_INPUT` (with `details`). */
export class ServerToolError extends Error {
  override readonly name = 'ServerToolError';
  readonly code: string;
  readonly details: AgentErrorFrame['details'];

  constructor(frame: AgentErrorFrame) {
    super(frame.message);
    this.code = frame.code;
    this.details = frame.details;
  }
}

/** `runServerTool` of a worker's run; throws for a run in the server's own process (it calls its tools directly). */
export function runServerTool(context: AgentRunContext, tool: string, input: unknown): Promise<ServerToolResult> {
  const run = (context as Partial<WorkerRunContext>).runServerTool;
  if (typeof run !== 'function') throw new TypeError('runServerTool is for runs of an agent worker; an agent in the server calls context.tools.');
  return run.call(context, tool, input);
}

/**
 * Hand parts of the task to sub-agents (PROTOCOL.md §24, Part II §A6.2): one `tool.run` of the
 * server's `delegate` per input, sent together, so they are one batch whose sub-agents run at the
 * same time, each in the scope of its call. Resolves, in the inputs' order, once every one has
 * ended and the server wrote their observations after the batch; `ok: false` for a sub-agent that
 * failed or was refused (its `text` says why).
 */
export function delegate(context: AgentRunContext, ...inputs: Array<{ task: string; agent?: string; name?: string }>): Promise<ServerToolResult[]> {
  return Promise.all(inputs.map((input) => runServerTool(context, 'delegate', input)));
}
