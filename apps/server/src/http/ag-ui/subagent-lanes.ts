import type { SessionState, SubagentStatus } from '@interthought/protocol';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { stepsOfScope } from './chain-messages.js';

/** What closes the sub-agents still open when the AG-UI run itself ends. */
export type RunEnding = 'success' | 'interrupt' | 'cancelled' | 'error';

/**
 * The session's sub-agents as one AG-UI run shows them (PROTOCOL.md §24.9): a scope is the
 * subagent invocation `subagentRunId` = its id, opened by `SUBAGENT_STARTED` before its first event
 * in the run and closed by `SUBAGENT_FINISHED` / `SUBAGENT_ERROR` when it ends. AG-UI opens an
 * invocation at most once per run, so a scope that runs again in the same run (a correction
 * inside it) keeps streaming under its id unopened; a later run opens it again.
 */
export class SubagentLanes {
  readonly #active = new Set<string>();
  readonly #ended = new Set<string>();

  constructor(private readonly emit: (event: BaseEvent) => void) {}

  /** Open `scope` in this run unless it was already (its parents first, so `parentSubagentRunId` names a started one). */
  open(state: SessionState, scope: string): void {
    if (this.#active.has(scope) || this.#ended.has(scope)) return;
    const info = state.subagents.get(scope);
    if (info === undefined) return;
    if (info.parentScope !== undefined) this.open(state, info.parentScope);
    const parentKnown = info.parentScope !== undefined && (this.#active.has(info.parentScope) || this.#ended.has(info.parentScope));
    this.#active.add(scope);
    this.emit({
      type: EventType.SUBAGENT_STARTED,
      subagentRunId: scope,
      name: info.name,
      description: info.task,
      // The delegate call is its own assistant message: the message and the call share the step's id.
      parentToolCallId: scope,
      parentMessageId: scope,
      ...(parentKnown ? { parentSubagentRunId: info.parentScope } : {}),
      metadata: { interthought: { agent: info.agent, depth: info.depth } },
    } as BaseEvent);
  }

  /** The sub-agent's status changed: running opens it, an end closes it. */
  status(state: SessionState, scope: string, status: SubagentStatus, error: string | undefined): void {
    switch (status) {
      case 'running':
        this.open(state, scope);
        return;
      case 'waiting':
        return;
      case 'completed':
        return this.#finish(scope, answerOf(state, scope));
      case 'failed':
        return this.#fail(scope, error ?? 'The sub-agent failed.', 'failed');
      case 'cancelled':
        return this.#fail(scope, 'The sub-agent was cancelled.', 'cancelled');
      case 'interrupted':
        return this.#fail(scope, 'The sub-agent was interrupted with its session.', 'interrupted');
    }
  }

  /** Close what is still open as the run ends (AG-UI refuses RUN_FINISHED over an active subagent). */
  closeAll(state: SessionState, ending: RunEnding, interruptIdsOf: (scope: string) => string[]): void {
    // Innermost first: a parent's segment ends after its children's.
    for (const scope of [...this.#active].reverse()) {
      switch (ending) {
        case 'interrupt': {
          const interruptIds = interruptIdsOf(scope);
          this.#close(scope, { type: EventType.SUBAGENT_FINISHED, subagentRunId: scope, outcome: { type: 'suspended', ...(interruptIds.length === 0 ? {} : { interruptIds }) } });
          break;
        }
        case 'success':
          this.#finish(scope, answerOf(state, scope));
          break;
        case 'cancelled':
          this.#fail(scope, 'The sub-agent was cancelled with its session.', 'cancelled');
          break;
        case 'error':
          this.#fail(scope, 'The sub-agent stopped with its session.', 'interrupted');
          break;
      }
    }
  }

  #finish(scope: string, answer: string | undefined): void {
    this.#close(scope, { type: EventType.SUBAGENT_FINISHED, subagentRunId: scope, outcome: { type: 'success' }, ...(answer === undefined ? {} : { result: answer }) });
  }

  #fail(scope: string, message: string, code: string): void {
    this.#close(scope, { type: EventType.SUBAGENT_ERROR, subagentRunId: scope, message, code });
  }

  #close(scope: string, event: Record<string, unknown>): void {
    if (!this.#active.delete(scope)) return;
    this.#ended.add(scope);
    this.emit(event as unknown as BaseEvent);
  }
}

/** The sub-agent's final answer: the last step of its chain, when that is one. */
function answerOf(state: SessionState, scope: string): string | undefined {
  const last = stepsOfScope(state, scope).at(-1);
  return last?.kind === 'final_answer' ? last.content : undefined;
}
