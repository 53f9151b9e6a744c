import type { AgentListing } from '@interthought/protocol';
import type { Agent, AgentAvailability, AgentModels } from './agent.js';

/** Agents by name; `session.create` picks one (the default when none is named). */
export class AgentRegistry {
  readonly #agents = new Map<string, Agent>();

  constructor(readonly defaultName = 'demo') {}

  register(agent: Agent): this {
    if (this.#agents.has(agent.name)) throw new Error(`Agent "${agent.name}" is already registered.`);
    this.#agents.set(agent.name, agent);
    return this;
  }

  /** Put `agent` in the place of the one of its name, keeping that place in the list (a declared agent that is now served). */
  replace(agent: Agent): this {
    if (!this.#agents.has(agent.name)) throw new Error(`Agent "${agent.name}" is not registered.`);
    this.#agents.set(agent.name, agent);
    return this;
  }

  /** Remove an agent (e.g. one served by workers that are gone for good); false when none had the name. */
  unregister(name: string): boolean {
    return this.#agents.delete(name);
  }

  get(name: string): Agent | undefined {
    return this.#agents.get(name);
  }

  /** The agents as `GET /api/agents` lists them; with `lang` (a base language, `zh`), their words in it where they have them. */
  list(lang?: string): AgentListing[] {
    return [...this.#agents.values()].map((agent) => {
      const availability: AgentAvailability = agent.availability();
      const said = lang === undefined ? undefined : agent.descriptions?.[lang];
      return {
        name: agent.name,
        description: said ?? agent.description,
        available: availability.available,
        ...(availability.available ? {} : { reason: (lang === undefined ? undefined : availability.reasons?.[lang]) ?? availability.reason }),
        default: agent.name === this.defaultName,
        ...(agent.models === undefined ? {} : modelsListing(agent.models)),
      };
    });
  }
}

function modelsListing(models: AgentModels): Pick<AgentListing, 'models' | 'defaultModel' | 'anyModel'> {
  return { models: [...models.offered], defaultModel: models.default, ...(models.any === true ? { anyModel: true } : {}) };
}
