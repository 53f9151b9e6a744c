import { AgentRegistry } from '@interthought/agent';
import { createDemoAgent } from '../../src/agents/demo/index.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { SessionManager } from '../../src/core/session-manager.js';
import { createDefaultTools } from '../../src/tools/index.js';

/** The real session core with the demo agent, the default tools and an in-memory store. */
export function createRealSessions(): SessionManager {
  return new SessionManager({
    store: new MemoryEventStore(),
    agents: new AgentRegistry('demo').register(createDemoAgent()),
    tools: createDefaultTools(),
  });
}
