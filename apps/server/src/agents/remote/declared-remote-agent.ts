import type { Agent } from '@interthought/agent';

/** Why a remote agent cannot run while no worker serves it. */
export const NO_WORKER_REASON = 'no worker connected';

/**
 * A `remote` agent of the agents file before any worker serves it: listed, unavailable with the
 * reason, and a run of it fails with that reason. The worker pool takes the name over once a
 * worker connects.
 */
export function declaredRemoteAgent(name: string, description: string): Agent {
  return {
    name,
    description,
    availability: () => ({ available: false, reason: NO_WORKER_REASON }),
    async run(): Promise<void> {
      throw new Error(NO_WORKER_REASON);
    },
  };
}
