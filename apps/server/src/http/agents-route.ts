import type { FastifyInstance } from 'fastify';
import type { AgentListing } from '@interthought/protocol';

/** `GET /api/agents`: the registry's list, the agents a session can be created with. */
export async function agentsRoute(app: FastifyInstance): Promise<void> {
  app.get('/agents', async (): Promise<AgentListing[]> => app.agents.list());
}
