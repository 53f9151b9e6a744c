import { applyEvent, createSessionState, type ServerMessage, type SessionEvent, type SessionState, type Step, type Usage } from '@interthought/protocol';
import { EventType, PROTOCOL_VERSION, type BaseEvent, type Interrupt, type TokenUsage } from '@ag-ui/core';
import type { Frame } from '../../core/fanout/frame.js';
import type { Peer } from '../../core/fanout/peer.js';
import type { Quota } from '../../core/commands/quota.js';
import { answeredCallOf, chainMessages, observationText, stepsOfScope } from './chain-messages.js';
import { SubagentLanes, type RunEnding } from './subagent-lanes.js';
import { pendingInterrupts } from './interrupts.js';

/** Where the stream's events go once it is open. */
export type EventSink = (event: BaseEvent) => void;

type Open = { kind: 'reasoning' | 'text' | 'tool' | 'step'; id: string; name?: string; scope?: string };

/** The attribution of a scoped step's events: its sub-agent's invocation (PROTOCOL.md §24.9). */
function attributed(scope: string | undefined): { subagentRunId?: string } {
  return scope === undefined ? {} : { subagentRunId: scope };
}

/**
 * One AG-UI run as a listener of its session: it folds the session's frames with the protocol's
 * reducer and turns each into AG-UI events as it streams (deltas included). Events wait until the
 * stream opens (a refusal before then is a plain REST error), and the run closes when the session
 * comes to rest after the run's own command: `RUN_FINISHED` (success, cancelled, or an interrupt
 * for each call that waits for approval and each question that waits for its answer) or `RUN_ERROR`.
 */
export class AgUiRunStream implements Peer {
  readonly id: string;
  readonly quota?: Quota;
  readonly user?: { id: string; name: string; admin: boolean };
  #state: SessionState | undefined;
  #sink: EventSink | undefined;
  readonly #waiting: BaseEvent[] = [];
  readonly #open = new Map<string, Open>();
  /** The session's events count toward the run only after its command was sent. */
  #commanded = false;
  /** `user_message` steps the run's own client sent: it has them already. */
  readonly #ownMessages = new Set<string>();
  readonly #usage = new Map<string, TokenUsage>();
  readonly #lanes = new SubagentLanes((event) => this.#emit(event));
  #closed = false;
  readonly #done: Promise<void>;
  #finish!: () => void;

  constructor(
    readonly threadId: string,
    readonly runId: string,
    who: { id: string; quota?: Quota; user?: { id: string; name: string; admin: boolean } },
  ) {
    this.id = who.id;
    if (who.quota !== undefined) this.quota = who.quota;
    if (who.user !== undefined) this.user = who.user;
    this.#done = new Promise((resolve) => (this.#finish = resolve));
  }

  /** The session as this run has seen it (undefined before its opening frame). */
  get state(): SessionState | undefined {
    return this.#state;
  }

  /** Settles once the run closed (its last event sent, or the stream abandoned). */
  get done(): Promise<void> {
    return this.#done;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** `RUN_STARTED`, then whatever waited; from now on events go straight to `sink`. */
  open(sink: EventSink, input: unknown): void {
    sink({ type: EventType.RUN_STARTED, threadId: this.threadId, runId: this.runId, protocolVersion: PROTOCOL_VERSION, input } as BaseEvent);
    this.#sink = sink;
    for (const event of this.#waiting.splice(0)) sink(event);
  }

  /** The run's command is about to be sent: what the session does from now on is this run's. */
  commanded(): void {
    this.#commanded = true;
  }

  /** The corrected chain, for a client whose messages no longer tell it. */
  snapshotMessages(): void {
    if (this.#state !== undefined) this.#emit({ type: EventType.MESSAGES_SNAPSHOT, messages: chainMessages(this.#state) } as BaseEvent);
  }

  /** Close the run at once with what waits for the user (a resume that decides nothing). */
  finishWaiting(): void {
    this.#finishRun();
  }

  /** Close with `RUN_ERROR` (a command refused after the stream opened, a session deleted). */
  fail(message: string, code?: string): void {
    if (this.#closed) return;
    this.#closeOpen();
    this.#closeLanes('error');
    this.#emit({ type: EventType.RUN_ERROR, message, ...(code === undefined ? {} : { code }), ...this.#usageField() } as BaseEvent);
    this.#close();
  }

  /** The client went away: nothing more is sent. */
  abandon(): void {
    this.#close();
  }

  send(frame: Frame): void {
    if (!this.#closed) this.#read(frame.message);
  }

  sendLive(frame: Frame): void {
    this.send(frame);
  }

  #read(message: ServerMessage): void {
    switch (message.type) {
      case 'session.created':
        this.#state = createSessionState(message.session);
        return;
      case 'session.snapshot':
        this.#state = createSessionState(message);
        return;
      case 'message.accepted':
        this.#ownMessages.add(message.stepId);
        return;
      default:
        if ('seq' in message && 'sessionId' in message && this.#state !== undefined) this.#onEvent(message as SessionEvent);
    }
  }

  #onEvent(event: SessionEvent): void {
    const state = this.#state!;
    // A requester's copy (with `requestId`) may come beside the plain one: fold each seq once.
    if (event.type !== 'session.deleted' && event.seq <= state.seq) return;
    const before = event.type === 'step.delta' || event.type === 'step.completed' ? state.steps.get(event.stepId) : undefined;
    try {
      applyEvent(state, event);
    } catch (error) {
      this.fail(`The session's events did not fold: ${error instanceof Error ? error.message : String(error)}`, 'INTERNAL');
      return;
    }
    if (!this.#commanded) return;
    switch (event.type) {
      case 'step.started':
        this.#started(event.step, state);
        return;
      case 'step.delta':
        if (before !== undefined && event.text !== '') this.#delta(before, event.text);
        return;
      case 'step.completed': {
        const step = state.steps.get(event.stepId);
        if (step !== undefined) this.#completed(step, state);
        return;
      }
      case 'step.corrected':
      case 'steps.invalidated':
      case 'steps.copied':
        // The chain changed under the client: what it holds is replaced by the chain as it is now.
        this.#closeOpen();
        this.snapshotMessages();
        return;
      case 'usage.recorded':
        this.#addUsage(event.model, event.usage);
        return;
      case 'subagent.started':
        this.#lanes.open(state, event.scope);
        return;
      case 'subagent.status':
        this.#lanes.status(state, event.scope, event.status, event.error);
        return;
      case 'session.status':
        this.#status(event.status, event.error);
        return;
      case 'session.deleted':
        this.fail('The session of this thread was deleted.', 'SESSION_NOT_FOUND');
        return;
      default:
        return;
    }
  }

  #started(step: Step, state: SessionState): void {
    const id = step.stepId;
    const { scope } = step;
    // A run that picks up a sub-agent already under way (a resume, a decision inside it) opens it first.
    if (scope !== undefined) this.#lanes.open(state, scope);
    const by = attributed(scope);
    const lane = scope === undefined ? {} : { scope };
    switch (step.kind) {
      case 'thought':
        this.#emit({ type: EventType.REASONING_START, messageId: id, ...by } as BaseEvent);
        this.#emit({ type: EventType.REASONING_MESSAGE_START, messageId: id, role: 'reasoning', ...by } as BaseEvent);
        this.#open.set(id, { kind: 'reasoning', id, ...lane });
        break;
      case 'final_answer':
        this.#emit({ type: EventType.TEXT_MESSAGE_START, messageId: id, role: 'assistant', ...by } as BaseEvent);
        this.#open.set(id, { kind: 'text', id, ...lane });
        break;
      case 'tool_call':
        this.#emit({ type: EventType.TOOL_CALL_START, toolCallId: id, toolCallName: step.tool ?? 'tool', ...by } as BaseEvent);
        this.#open.set(id, { kind: 'tool', id, ...lane });
        break;
      case 'action': {
        const name = `action ${id}`;
        this.#emit({ type: EventType.STEP_STARTED, stepName: name, ...by } as BaseEvent);
        this.#open.set(id, { kind: 'step', id, name, ...lane });
        break;
      }
      case 'user_message':
        // Someone else's message (the web app, another client) is news to this client; its own is not.
        if (!this.#ownMessages.has(id)) this.#emit({ type: EventType.TEXT_MESSAGE_START, messageId: id, role: 'user', ...by } as BaseEvent);
        if (!this.#ownMessages.has(id)) this.#open.set(id, { kind: 'text', id, ...lane });
        break;
      case 'observation':
        return;
    }
    if (step.content !== '') this.#delta(step, step.content);
    if (step.status === 'completed') this.#completed(step, state);
  }

  #delta(step: Step, text: string): void {
    const open = this.#open.get(step.stepId);
    if (open === undefined) return;
    const by = attributed(open.scope);
    switch (open.kind) {
      case 'reasoning':
        this.#emit({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: open.id, delta: text, ...by } as BaseEvent);
        return;
      case 'text':
        this.#emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: open.id, delta: text, ...by } as BaseEvent);
        return;
      case 'tool':
        this.#emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: open.id, delta: text, ...by } as BaseEvent);
        return;
      case 'step':
        return;
    }
  }

  #completed(step: Step, state: SessionState): void {
    if (step.kind === 'observation') {
      const chain = stepsOfScope(state, step.scope);
      const at = chain.findIndex((candidate) => candidate.stepId === step.stepId);
      this.#emit({
        type: EventType.TOOL_CALL_RESULT,
        messageId: step.stepId,
        toolCallId: at === -1 ? (step.parentId ?? step.stepId) : answeredCallOf(chain, at),
        content: observationText(step),
        role: 'tool',
        ...attributed(step.scope),
      } as BaseEvent);
      return;
    }
    this.#end(step.stepId);
  }

  #end(stepId: string): void {
    const open = this.#open.get(stepId);
    if (open === undefined) return;
    this.#open.delete(stepId);
    const by = attributed(open.scope);
    switch (open.kind) {
      case 'reasoning':
        this.#emit({ type: EventType.REASONING_MESSAGE_END, messageId: open.id, ...by } as BaseEvent);
        this.#emit({ type: EventType.REASONING_END, messageId: open.id, ...by } as BaseEvent);
        return;
      case 'text':
        this.#emit({ type: EventType.TEXT_MESSAGE_END, messageId: open.id, ...by } as BaseEvent);
        return;
      case 'tool':
        this.#emit({ type: EventType.TOOL_CALL_END, toolCallId: open.id, ...by } as BaseEvent);
        return;
      case 'step':
        this.#emit({ type: EventType.STEP_FINISHED, stepName: open.name, ...by } as BaseEvent);
        return;
    }
  }

  /** Streams left open by steps that will not complete (a correction, a failure) are closed first. */
  #closeOpen(): void {
    for (const stepId of [...this.#open.keys()]) this.#end(stepId);
  }

  #status(status: SessionState['session']['status'], error: string | undefined): void {
    switch (status) {
      case 'completed':
      case 'idle':
      case 'waiting':
      case 'cancelled':
        this.#finishRun();
        return;
      case 'failed':
        this.fail(error ?? 'The agent failed.', 'AGENT_FAILED');
        return;
      case 'interrupted':
        this.fail('The run was interrupted (the server stopped); resume it from the web app or run the thread again.', 'INTERRUPTED');
        return;
      case 'running':
      case 'paused':
        return;
    }
  }

  #finishRun(): void {
    if (this.#closed || this.#state === undefined) return;
    this.#closeOpen();
    const status = this.#state.session.status;
    const interrupts = pendingInterrupts(this.#state);
    const outcome =
      interrupts.length > 0 ? { type: 'interrupt', interrupts } : status === 'cancelled' ? { type: 'cancelled' } : { type: 'success' };
    this.#closeLanes(outcome.type as RunEnding, interrupts);
    this.#emit({ type: EventType.RUN_FINISHED, threadId: this.threadId, runId: this.runId, outcome, ...this.#usageField() } as BaseEvent);
    this.#close();
  }

  /** Sub-agents still open as the run ends: a waiting one is suspended on its own interrupts. */
  #closeLanes(ending: RunEnding, interrupts: readonly Interrupt[] = []): void {
    if (this.#state === undefined) return;
    this.#lanes.closeAll(this.#state, ending, (scope) => interrupts.filter((interrupt) => interrupt.subagentRunId === scope).map((interrupt) => interrupt.id));
  }

  #addUsage(model: string, usage: Usage): void {
    const entry = this.#usage.get(model) ?? { model, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    entry.inputTokens = (entry.inputTokens ?? 0) + usage.inputTokens;
    entry.outputTokens = (entry.outputTokens ?? 0) + usage.outputTokens;
    entry.totalTokens = entry.inputTokens + entry.outputTokens;
    if (usage.reasoningTokens !== undefined) entry.reasoningTokens = (entry.reasoningTokens ?? 0) + usage.reasoningTokens;
    if (usage.cachedTokens !== undefined) entry.cachedInputTokens = (entry.cachedInputTokens ?? 0) + usage.cachedTokens;
    this.#usage.set(model, entry);
  }

  #usageField(): { usage?: TokenUsage[] } {
    return this.#usage.size === 0 ? {} : { usage: [...this.#usage.values()] };
  }

  #emit(event: BaseEvent): void {
    if (this.#closed) return;
    if (this.#sink === undefined) this.#waiting.push(event);
    else this.#sink(event);
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#finish();
  }
}
