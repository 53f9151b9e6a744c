import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AgentListing } from '@interthought/protocol';

/** The languages agents' words come in besides English (PROTOCOL.md §18). */
const LISTING_LANGUAGES = ['en', 'zh'] as const;

/** The language a request asks for: `?lang=`, else the first of `Accept-Language` the server has; English otherwise. */
export function listingLanguage(request: Pick<FastifyRequest, 'headers'> & { query: { lang?: string } }): string {
  if (request.query.lang !== undefined) return request.query.lang;
  const accepted = String(request.headers['accept-language'] ?? '')
    .split(',')
    .map((part) => part.split(';')[0]!.trim().toLowerCase().split('-')[0]!);
  return accepted.find((lang): lang is (typeof LISTING_LANGUAGES)[number] => (LISTING_LANGUAGES as readonly string[]).includes(lang)) ?? 'en';
}

/**
 * `GET /api/agents[?lang=en|zh]`: the registry's list, the agents a session can be created with,
 * each description and unavailable reason in the asked language where the agent says it (English
 * otherwise: an old client that asks nothing gets what it always got); an agent that delegates
 * names its `subagents` (PROTOCOL.md §24.8).
 */
export async function agentsRoute(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { lang?: string } }>(
    '/agents',
    { schema: { querystring: { type: 'object', properties: { lang: { type: 'string', enum: [...LISTING_LANGUAGES] } } } } },
    async (request): Promise<AgentListing[]> => {
      const lang = listingLanguage(request);
      return app.agents.list(lang === 'en' ? undefined : lang).map((listing) => {
        const subagents = (app.agents.get(listing.name) as { subagents?: readonly string[] } | undefined)?.subagents;
        return subagents === undefined || subagents.length === 0 ? listing : { ...listing, subagents: [...subagents] };
      });
    },
  );
}
