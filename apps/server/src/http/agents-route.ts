import type { FastifyInstance } from 'fastify';
import type { AgentListing } from '@interthought/protocol';

/**
 * `GET /api/agents`: the registry's list, the agents a session can be created with; an agent that
 * delegates names its `subagents` (PROTOCOL.md §24.8).
 */
export async function agentsRoute(app: FastifyInstance): Promise<void> {
  app.get('/agents', async (): Promise<AgentListing[]> =>
    app.agents.list().map((listing) => {
      const subagents = (app.agents.get(listing.name) as { subagents?: readonly string[] } | undefined)?.subagents;
      return subagents === undefined || subagents.length === 0 ? listing : { ...listing, subagents: [...subagents] };
    }),
  );
}
