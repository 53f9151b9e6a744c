import type { Agent } from '@interthought/agent';

/** Why an `ag-ui` entry of the agents file is listed but cannot run yet. */
export const AG_UI_REASON = 'AG-UI agents arrive in a later release';

/** An agent listed with the reason it cannot run; a run of it fails with that reason. */
export function unavailableAgent(name: string, description: string, reason: string): Agent {
  return {
    name,
    description,
    availability: () => ({ available: false, reason }),
    async run(): Promise<void> {
      throw new Error(reason);
    },
  };
}
