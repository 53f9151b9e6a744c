// Agents served by worker processes over /ws/agents (PROTOCOL.md Part II): one Agent to the core, however many workers.
export { RemoteAgent } from './remote-agent.js';
export { WorkerPool, NO_WORKER_REASON, type ServedAgent, type WorkersElsewhere } from './worker-pool.js';
export { WorkerConnection, WORKER_FLOOD_CLOSE, type WorkerConnectionOptions } from './worker-connection.js';
