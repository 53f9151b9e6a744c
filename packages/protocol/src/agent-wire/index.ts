// The agent wire protocol `interthought-agent/1` (PROTOCOL.md Part II): what a worker process and the server say on /ws/agents.
export * from './version.js';
export * from './errors.js';
export * from './hello.js';
export * from './register.js';
export * from './run.js';
export * from './steps.js';
export * from './tool-run.js';
export * from './messages.js';
export * from './parse.js';
