import type { AgentListing } from '@interthought/protocol';

/**
 * The models the home page lets the user choose between for `agent`: its `models` when it offers
 * more than one (one model, or none, leaves nothing to choose).
 */
export function modelChoices(agent: AgentListing | undefined): readonly string[] {
  const models = agent?.models ?? [];
  return models.length > 1 ? models : [];
}

/** The model a new session of `agent` asks for: the one picked if the agent offers it, else its default; undefined when there is nothing to choose. */
export function chosenModel(agent: AgentListing | undefined, picked: string | undefined): string | undefined {
  const choices = modelChoices(agent);
  if (choices.length === 0) return undefined;
  if (picked !== undefined && choices.includes(picked)) return picked;
  return agent?.defaultModel !== undefined && choices.includes(agent.defaultModel) ? agent.defaultModel : choices[0];
}
