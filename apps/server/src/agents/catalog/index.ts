import { AgentRegistry, type Agent } from '@interthought/agent';
import type { AgentEntry, AgentsCatalog } from '../../config/agents-catalog.js';
import { createDemoAgent } from '../demo/index.js';
import { createFirehoseAgent } from '../firehose/firehose-agent.js';
import { createOpenAIAgent } from '../openai/index.js';
import { declaredRemoteAgent } from '../remote/declared-remote-agent.js';
import { agUiEntryAgent } from './ag-ui-entry.js';
import { lessonsOf } from './entry-lessons.js';
import { openAIEntryAgent, openAISubagents } from './openai-entry.js';

export { agUiEntryAgent } from './ag-ui-entry.js';
export { entryModels, openAIEntryAgent, openAISubagents } from './openai-entry.js';

type Env = Record<string, string | undefined>;

/** One entry of the agents file as an agent, by its kind. */
export function catalogAgent(name: string, entry: AgentEntry, env: Env): Agent {
  switch (entry.type) {
    case 'openai':
      return openAIEntryAgent(name, entry, env);
    case 'remote':
      return declaredRemoteAgent(name, entry.description, lessonsOf(entry));
    case 'ag-ui':
      return agUiEntryAgent(name, entry, env);
    default: {
      const unknown: never = entry;
      throw new Error(`Unknown agent kind ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * The agents a server offers: `demo` (the default), the `openai` agent of the OPENAI_* variables
 * unless the agents file has an entry of that name, then the file's entries in its order.
 */
export function catalogAgents(catalog: AgentsCatalog | undefined, env: Env): AgentRegistry {
  const agents = new AgentRegistry('demo').register(createDemoAgent());
  const entries = catalog?.agents ?? [];
  if (!entries.some(({ name }) => name === 'openai')) agents.register(createOpenAIAgent(env));
  for (const { name, entry } of entries) {
    agents.register(catalogAgent(name, entry, env));
    // Its sub-agents are agents too: a delegate call names the one that runs it.
    if (entry.type === 'openai') for (const subagent of openAISubagents(name, entry, env)) agents.register(subagent);
  }
  // The firehose exists only for `pnpm bench`: it would be a confusing choice in the picker.
  if (env.INTERTHOUGHT_BENCH === '1') agents.register(createFirehoseAgent());
  return agents;
}
