/** Where a replay from a step runs (PROTOCOL.md §26.5): an agent, and the model it offers when there is a choice. */
export interface ReplayTarget {
  agent: string;
  model?: string;
}

/** The `session.fork` fields of a replay: it runs at once, on the agent and model picked. */
export function replayFields(target: ReplayTarget): { run: true; agent: string; options?: { model: string } } {
  return { run: true, agent: target.agent, ...(target.model === undefined ? {} : { options: { model: target.model } }) };
}
