import type { Interrupt } from '@ag-ui/core';

/**
 * What the bridge keeps of one session's AG-UI thread between runs: the agent's own ids for the
 * steps it produced (so the history it gets back names its messages and calls as it did), where a
 * `thought` came from, the last state it sent, and the interrupts its last run ended with. Kept in
 * memory: after a restart the agent gets the chain with fresh ids and no resume entries.
 */
export interface ThreadMemory {
  /** Step id → the agent's message or tool call id. */
  readonly agentIds: Map<string, string>;
  /** Thought steps that were text messages of the agent (the others were reasoning). */
  readonly textThoughts: Set<string>;
  state: unknown;
  /** The `ask_user` calls the bridge wrote for the agent's questions (interrupts not about a tool call): not the agent's messages. */
  readonly questions: Set<string>;
  /** The interrupts of the run that ended waiting, the step each concerns, and those the bridge approved itself. */
  pending?: { interrupts: Interrupt[]; stepIds: Map<string, string>; approved?: Set<string> };
}

const MAX_THREADS = 10_000;

export class ThreadMemories {
  readonly #threads = new Map<string, ThreadMemory>();

  of(threadId: string): ThreadMemory {
    let memory = this.#threads.get(threadId);
    if (memory === undefined) {
      memory = { agentIds: new Map(), textThoughts: new Set(), questions: new Set(), state: {} };
      // The oldest thread goes first: a long-lived server does not keep every session's ids forever.
      if (this.#threads.size >= MAX_THREADS) this.#threads.delete(this.#threads.keys().next().value!);
    } else {
      this.#threads.delete(threadId);
    }
    this.#threads.set(threadId, memory);
    return memory;
  }
}
