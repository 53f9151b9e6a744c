import type { Agent } from '@interthought/agent';
import type { AgUiEntry } from '../../config/agents-catalog.js';
import { AG_UI_LIMITS, agUiAgent } from '../ag-ui/index.js';
import { lessonsOf } from './entry-lessons.js';

type Env = Record<string, string | undefined>;

/** An `ag-ui` entry of the agents file as an agent: its endpoint, headers (variables filled at each request), stall timeout and retries. */
export function agUiEntryAgent(name: string, entry: AgUiEntry, env: Env): Agent {
  const lessons = lessonsOf(entry);
  return agUiAgent({
    name,
    description: entry.description,
    endpoint: {
      url: entry.url,
      headers: entry.headers ?? {},
      timeoutMs: entry.timeoutMs ?? AG_UI_LIMITS.timeoutMs.fallback,
      retries: entry.retries ?? AG_UI_LIMITS.retries.fallback,
    },
    env,
    ...(lessons === undefined ? {} : { lessons }),
  });
}
