import { runningSubagents, type SessionState } from '@interthought/protocol';

/**
 * How many of the session's sub-agents run now (PROTOCOL.md §24.3), at every depth, waiting ones
 * included: what the rail and the header say. One whose delegate call was invalidated no longer
 * counts, whatever its last status said: its run was aborted with the correction (§24.4, 1).
 */
export function countRunningSubagents(state: SessionState): number {
  let running = 0;
  for (const subagent of runningSubagents(state)) if (state.steps.get(subagent.scope)?.status !== 'invalidated') running++;
  return running;
}
