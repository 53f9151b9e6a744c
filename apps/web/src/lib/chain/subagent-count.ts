import type { SessionState } from '@interthought/protocol';

/**
 * How many of the session's sub-agents are running now (PROTOCOL.md §24.3), at every depth: what
 * the rail and the header say. A sub-agent whose delegate call was invalidated no longer counts,
 * whatever its last status said: its run was aborted with the correction (§24.4, 1).
 */
export function countRunningSubagents(state: Pick<SessionState, 'subagents' | 'steps'>): number {
  let running = 0;
  for (const subagent of state.subagents.values()) {
    if (subagent.status === 'running' && state.steps.get(subagent.scope)?.status !== 'invalidated') running++;
  }
  return running;
}
