/** The agent wire protocol's name and major version, announced in the worker `hello.protocol` (PROTOCOL.md Part II). */
export const AGENT_PROTOCOL_VERSION = 'interthought-agent/1' as const;
export type AgentProtocolVersion = typeof AGENT_PROTOCOL_VERSION;

/** Where workers connect, beside the client protocol's `/ws`. */
export const AGENT_WIRE_PATH = '/ws/agents' as const;

/** Field sizes fixed by `interthought-agent/1` (a server announces its configurable limits in `hello.limits`). */
export const AGENT_FIELD_LIMITS = {
  /** An agent name, as `session.create.agent` takes it. */
  agentNameMax: 64,
  /** An agent's one-line description. */
  descriptionMax: 500,
  /** Agents one `agent.register` may name (and one worker may serve). */
  agentsPerWorkerMax: 32,
  /** A worker's name for a step (`ref`) and a server's `runId`. */
  refMax: 128,
  /** A tool name. */
  toolNameMax: 64,
  /** A `notice.detail`; the server cuts longer ones. */
  noticeMax: 1_000,
  /** A `run.fail.message`, which becomes the session's error. */
  failMessageMax: 2_000,
  /** A model name in `usage`. */
  modelMax: 200,
} as const;
