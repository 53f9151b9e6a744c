import type { AgentListing } from '@interthought/protocol';
import type { ReplayTarget } from './replay-target.js';

/**
 * The agent and model a "Replay on…" dialog picks (PROTOCOL.md §26.5), from `GET /api/agents`.
 * It starts on another agent than the session's (the question is "would another one do better?"),
 * or on the session's own when no other is available.
 */
export class ReplayChoice {
  agents = $state.raw<AgentListing[]>([]);
  agent = $state<string | undefined>(undefined);
  /** Typed or picked; empty means the agent's default. */
  model = $state('');
  loading = $state(true);
  error = $state<string | null>(null);

  readonly #current: string | undefined;

  constructor(currentAgent: string | undefined) {
    this.#current = currentAgent;
  }

  /** The agent picked, as listed. */
  get listing(): AgentListing | undefined {
    return this.agents.find((entry) => entry.name === this.agent);
  }

  /** The models to pick from: those the agent lists (one that takes any model may be typed too). */
  get models(): readonly string[] {
    return this.listing?.models ?? [];
  }

  /** What the fork asks for; undefined until an available agent is picked. */
  get target(): ReplayTarget | undefined {
    const listing = this.listing;
    if (listing === undefined || !listing.available) return undefined;
    const model = this.model.trim();
    if (model === '' || listing.models === undefined) return { agent: listing.name };
    return { agent: listing.name, model };
  }

  /** The list arrived: pick another available agent than the session's, and its default model. */
  loaded(list: AgentListing[]): void {
    this.agents = list;
    this.loading = false;
    const available = list.filter((entry) => entry.available);
    const kept = available.find((entry) => entry.name === this.agent);
    this.pick((kept ?? available.find((entry) => entry.name !== this.#current) ?? available[0])?.name);
  }

  failed(message: string): void {
    this.loading = false;
    this.error = message;
  }

  /** Pick an agent: its model choice starts at its default. */
  pick(name: string | undefined): void {
    this.agent = name;
    this.model = this.listing?.defaultModel ?? '';
  }
}
