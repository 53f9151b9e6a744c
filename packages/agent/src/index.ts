// The one contract every agent implements, wherever it runs, and what the session core gives it for a run.
export type { Agent, AgentAvailability, AgentModels, AgentRunContext, ModelCallReport, ReportedTokens, StepSink, StepWriter, SubagentSink } from './agent.js';
export type { AgentTool, AgentToolbox, ToolCallContext, ToolInputCheck, ToolResult } from './agent-tools.js';
export { AgentRegistry } from './agent-registry.js';
export { abortableSleep } from './abortable-sleep.js';
export { RunInterruptedError, isRunInterrupted } from './run-interrupted.js';
export * from './worker/index.js';
