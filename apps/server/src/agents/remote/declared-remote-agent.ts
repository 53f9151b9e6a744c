import type { Agent, AgentAvailability } from '@interthought/agent';

/** Why a remote agent cannot run while no worker serves it. */
export const NO_WORKER_REASON = 'no worker connected';
/** The same, for the 中文 picker. */
export const NO_WORKER_REASONS: Readonly<Record<string, string>> = { zh: '没有连接的工作进程' };

/**
 * A `remote` agent of the agents file before any worker serves it: listed, unavailable with the
 * reason, and a run of it fails with that reason. The worker pool puts its `RemoteAgent` in this
 * one's place (in the same place of the list) once a worker registers the name.
 */
export class DeclaredRemoteAgent implements Agent {
  constructor(
    readonly name: string,
    readonly description: string,
    /** `"lessons": true` of its entry (PROTOCOL.md §26.4): the workers' runs of it get `run.start.lessons`. */
    readonly lessons?: { readonly max: number },
  ) {}

  availability(): AgentAvailability {
    return { available: false, reason: NO_WORKER_REASON, reasons: NO_WORKER_REASONS };
  }

  async run(): Promise<void> {
    throw new Error(NO_WORKER_REASON);
  }
}

/** The agent a `remote` entry of the agents file is listed as until a worker serves it. */
export function declaredRemoteAgent(name: string, description: string, lessons?: { readonly max: number }): Agent {
  return new DeclaredRemoteAgent(name, description, lessons);
}
