/** The bounds and defaults of an `ag-ui` entry's settings (the agents file is checked against them). */
export const AG_UI_LIMITS = {
  /** No event for this long and the run fails: the agent stalled. */
  timeoutMs: { min: 1_000, max: 600_000, fallback: 60_000 },
  /** Attempts again after a connection failure, before the stream opens (never once it has). */
  retries: { min: 0, max: 10, fallback: 2 },
} as const;

/** The pause before retry `attempt` (1, 2, …): doubling from half a second, at most 8 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(500 * 2 ** (attempt - 1), 8_000);
}

/** An AG-UI endpoint as a run reaches it. */
export interface AgUiEndpoint {
  url: string;
  /** Header values as the entry writes them, with `${NAME}` where a variable's value goes. */
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  retries: number;
}
