// An agent of any process served to an Interthought server over /ws/agents (PROTOCOL.md Part II).
export { connectWorker, WorkerRefusedError, type AgentWorker, type ConnectWorkerOptions, type WorkerEvent } from './connect-worker.js';
export { delegate, runServerTool, ServerToolError, type ServerToolResult, type WorkerAgent, type WorkerAgentEntry, type WorkerRunContext } from './worker-agent.js';
export { askUser, answerAtHead, type UserAnswer } from './ask-user.js';
export { checkToolInput, createToolbox } from './worker-toolbox.js';
export { reconnectDelay, BACKOFF_DEFAULTS, type BackoffOptions } from './backoff.js';
