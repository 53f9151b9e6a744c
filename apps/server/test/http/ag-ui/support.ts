import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { expect } from 'vitest';

/** An AG-UI client of one thread, with every event of its runs (each run's from RUN_STARTED on). */
export class ThreadClient {
  readonly agent: HttpAgent;
  readonly runs: BaseEvent[][] = [];

  constructor(baseUrl: string, agentName = 'demo', headers: Record<string, string> = {}, threadId = randomUUID()) {
    this.agent = new HttpAgent({ url: `${baseUrl}/api/ag-ui/${agentName}`, threadId, headers });
  }

  get threadId(): string {
    return this.agent.threadId;
  }

  /** Say `text` and run: the run's events (every stream passes the client's verify stage, or this rejects). */
  async say(text: string, forwardedProps?: unknown): Promise<BaseEvent[]> {
    this.agent.addMessage({ id: randomUUID(), role: 'user', content: text });
    return this.run(forwardedProps === undefined ? {} : { forwardedProps });
  }

  async run(parameters: { forwardedProps?: unknown; resume?: RunAgentInput['resume'] } = {}): Promise<BaseEvent[]> {
    const events: BaseEvent[] = [];
    this.runs.push(events);
    await this.agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
    return events;
  }
}

export const typesOf = (events: readonly BaseEvent[]): string[] => events.map((event) => event.type);

/** A RunAgentInput as a plain client posts it. */
export function runInput(threadId: string, text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: 'user', content: text }], tools: [], context: [], state: {}, forwardedProps: {}, ...extra };
}

/** The RUN_FINISHED that must end a run's `events`, with its outcome (its interrupts typed as the caller reads them). */
export function runFinished<Interrupt = Record<string, unknown>>(events: readonly BaseEvent[]): { type: string; outcome: { type: string; interrupts?: Interrupt[] } } {
  const last = events.at(-1) as unknown as { type: string; outcome: { type: string; interrupts?: Interrupt[] } };
  expect(last.type).toBe(EventType.RUN_FINISHED);
  return last;
}

/** The assistant text a run streamed, its TEXT_MESSAGE_CONTENT deltas joined. */
export function textOf(events: readonly BaseEvent[]): string {
  return events
    .filter((event) => event.type === EventType.TEXT_MESSAGE_CONTENT)
    .map((event) => (event as unknown as { delta: string }).delta)
    .join('');
}
