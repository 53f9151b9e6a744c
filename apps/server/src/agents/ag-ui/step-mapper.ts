import { EventType, type Interrupt, type ResumeEntry, type RunFinishedEvent, type TokenUsage, type ToolCallResultEvent } from '@ag-ui/core';
import { ASK_USER_TOOL, AskUserInputSchema, type ApprovalPolicy, type StepKind } from '@interthought/protocol';
import { checkToolInput, type StepSink, type StepWriter } from '@interthought/agent';
import type { AgUiEvent } from './event-validation.js';
import { approvedEntry, interruptWaits, isToolInterrupt, questionOf } from './interrupts.js';
import { applyPatch } from './json-patch.js';
import type { ThreadMemory } from './thread-memory.js';

/*
 * Verified AG-UI events → steps. A step's kind is fixed when it starts and the chain streams one
 * step at a time, so events wait in order behind the step that streams:
 * - reasoning messages are `thought`s, streamed as they come;
 * - an assistant text message is held until what follows settles its kind: the run finishing
 *   makes it the `final_answer`; a tool call, a result, another message or step makes it a
 *   `thought`. It is then written with the deltas it came in;
 * - a tool call is a `tool_call` (the name from its start, the arguments' deltas as content); its
 *   end waits for what follows, because only the run's end says whether it was interrupted for;
 * - a tool result is an `observation`; a framework step's start an `action` naming it.
 */

interface Entry {
  /** Undefined for a text message whose kind the next event settles. */
  kind: StepKind | undefined;
  tool?: string;
  /** The agent's id for it (message or tool call). */
  agentId?: string;
  pieces: string[];
  ended: boolean;
  /** Whether its end is decided (a tool call's is only once the next event says it was not interrupted for). */
  settled: boolean;
  waits?: boolean;
  result?: unknown;
  interruptId?: string;
  /** An `ask_user` call the bridge writes for an interrupt that is not about a tool call. */
  question?: boolean;
  fromText?: boolean;
  writer?: StepWriter;
}

export interface RunEnd {
  /** Answers the bridge gives itself (the policy let the interrupted calls through): run again with them. */
  autoResume?: ResumeEntry[];
}

/** The steps the mapper wrote, as the next request's history needs them. */
export interface WrittenStep {
  stepId: string;
  kind: StepKind;
  tool?: string;
  content: string;
}

function resultText(event: ToolCallResultEvent): string {
  if (typeof event.content === 'string') return event.content;
  return event.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('');
}

function parsedResult(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export class StepMapper {
  readonly #entries: Entry[] = [];
  /** Open messages and calls by the agent's id. */
  readonly #open = new Map<string, Entry>();
  /** Tool names by call id, for results. */
  readonly #toolNames = new Map<string, string>();
  /** Text messages of other roles than the assistant's: not steps. */
  readonly #ignored = new Set<string>();
  readonly #stepIds: string[] = [];
  readonly written: WrittenStep[] = [];
  /** Calls the bridge answered itself (an `ask_user` call with bad input): the agent runs again to read the answers. */
  answeredCalls = 0;
  /** The step of each tool call written whole, by the agent's id for the call (a sub-agent starts on one). */
  readonly #callSteps = new Map<string, string>();
  #waiting = false;

  constructor(
    private readonly sink: StepSink,
    private readonly memory: ThreadMemory,
    private readonly policy: ApprovalPolicy | undefined,
    /** Tool names of calls made in earlier runs, by call id: a resumed run may answer one. */
    private readonly earlierCalls: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** Whether a step now waits for the user's approval (the core has ended the run). */
  get waiting(): boolean {
    return this.#waiting;
  }

  async handle(event: AgUiEvent): Promise<RunEnd | undefined> {
    this.#settleBy(event);
    let end: RunEnd | undefined;
    switch (event.type) {
      case EventType.TEXT_MESSAGE_START: {
        if (event.role !== undefined && event.role !== 'assistant') {
          this.#ignored.add(event.messageId);
          break;
        }
        const held = this.#entries.find((entry) => entry.agentId === event.messageId && entry.kind === undefined);
        // A closed message is closed, not sealed: a second start of the same id continues it.
        if (held !== undefined) {
          held.ended = false;
          this.#open.set(`text:${event.messageId}`, held);
        } else this.#add(`text:${event.messageId}`, { kind: undefined, agentId: event.messageId, pieces: [], ended: false, settled: true, fromText: true });
        break;
      }
      case EventType.TEXT_MESSAGE_CONTENT:
        this.#open.get(`text:${event.messageId}`)?.pieces.push(event.delta);
        break;
      case EventType.TEXT_MESSAGE_END:
        this.#ignored.delete(event.messageId);
        this.#close(`text:${event.messageId}`);
        break;
      case EventType.REASONING_MESSAGE_START:
        this.#add(`reasoning:${event.messageId}`, { kind: 'thought', agentId: event.messageId, pieces: [], ended: false, settled: true });
        break;
      case EventType.REASONING_MESSAGE_CONTENT:
        this.#open.get(`reasoning:${event.messageId}`)?.pieces.push(event.delta);
        break;
      case EventType.REASONING_MESSAGE_END:
        this.#close(`reasoning:${event.messageId}`);
        break;
      case EventType.TOOL_CALL_START:
        this.#toolNames.set(event.toolCallId, event.toolCallName);
        this.#add(`tool:${event.toolCallId}`, { kind: 'tool_call', tool: event.toolCallName, agentId: event.toolCallId, pieces: [], ended: false, settled: false });
        break;
      case EventType.TOOL_CALL_ARGS:
        this.#open.get(`tool:${event.toolCallId}`)?.pieces.push(event.delta);
        break;
      case EventType.TOOL_CALL_END:
        this.#close(`tool:${event.toolCallId}`);
        break;
      case EventType.TOOL_CALL_RESULT: {
        const text = resultText(event);
        const tool = this.#toolNames.get(event.toolCallId) ?? this.#earlierToolName(event.toolCallId);
        this.#entries.push({ kind: 'observation', ...(tool === undefined ? {} : { tool }), agentId: event.messageId, pieces: [text], ended: true, settled: true, result: parsedResult(text) });
        break;
      }
      case EventType.STEP_STARTED:
        this.#entries.push({ kind: 'action', pieces: [event.stepName], ended: true, settled: true });
        break;
      case EventType.STATE_SNAPSHOT:
        this.memory.state = event.snapshot;
        break;
      case EventType.STATE_DELTA:
        this.memory.state = applyPatch(this.memory.state, event.delta);
        break;
      case EventType.RUN_FINISHED:
        end = this.#finish(event);
        break;
      case EventType.RUN_ERROR:
        this.flushAsThoughts();
        break;
      default:
        // STEP_FINISHED, REASONING_START/END, encrypted reasoning, snapshots of messages and
        // activities, CUSTOM and RAW: nothing of the chain (see README/configuration). Subagents are
        // routed before they get here (SubagentRouter).
        break;
    }
    await this.pump();
    if (event.type === EventType.RUN_FINISHED || event.type === EventType.RUN_ERROR) this.report(event.usage);
    return end;
  }

  /** What a run that fails leaves: held text as thoughts, held calls as not waiting, so the user sees what came. */
  flushAsThoughts(): void {
    for (const entry of this.#entries) {
      if (entry.kind === undefined) this.#settleText(entry, 'thought');
      if (!entry.settled) this.#settleCall(entry, false);
      entry.ended = true;
    }
  }

  /** The usage the run reported, once per model, on the steps this run wrote. */
  report(usage: readonly TokenUsage[] | undefined): void {
    for (const entry of usage ?? []) {
      if (entry.inputTokens === undefined || entry.outputTokens === undefined) continue;
      this.sink.usage({
        model: entry.model ?? 'unknown',
        usage: {
          inputTokens: entry.inputTokens,
          outputTokens: entry.outputTokens,
          ...(entry.reasoningTokens === undefined ? {} : { reasoningTokens: entry.reasoningTokens }),
          ...(entry.cachedInputTokens === undefined ? {} : { cachedTokens: entry.cachedInputTokens }),
        },
        stepIds: [...this.#stepIds],
      });
    }
  }

  /** Write what can be written: the first entry streams, the ones behind it wait for its end. */
  async pump(): Promise<void> {
    while (!this.#waiting) {
      const head = this.#entries[0];
      if (head === undefined || head.kind === undefined) return;
      if (head.writer === undefined) {
        head.writer = this.sink.start(head.kind, head.tool === undefined ? undefined : { tool: head.tool });
        const { stepId } = head.writer;
        this.#stepIds.push(stepId);
        if (head.agentId !== undefined) this.memory.agentIds.set(stepId, head.agentId);
        if (head.fromText && head.kind === 'thought') this.memory.textThoughts.add(stepId);
        if (head.interruptId !== undefined) this.memory.pending?.stepIds.set(head.interruptId, stepId);
        this.written.push({ stepId, kind: head.kind, ...(head.tool === undefined ? {} : { tool: head.tool }), content: '' });
      }
      const written = this.written[this.written.length - 1]!;
      while (head.pieces.length > 0) {
        const piece = head.pieces.shift()!;
        written.content += piece;
        await head.writer.write(piece);
      }
      if (!head.ended || !head.settled) return;
      this.#entries.shift();
      head.writer.end({ ...(head.result === undefined ? {} : { result: head.result }), ...(head.kind === 'tool_call' ? { waitsForApproval: head.waits === true } : {}) });
      if (head.kind === 'tool_call' && head.agentId !== undefined) this.#callSteps.set(head.agentId, head.writer.stepId);
      if (head.question === true) this.memory.questions.add(head.writer.stepId);
      if (head.waits === true) this.#waiting = true;
      if (head.kind === 'tool_call' && head.tool === ASK_USER_TOOL) this.#asked(this.written.at(-1)!.content);
    }
  }

  /**
   * The step of the agent's tool call `toolCallId`, written whole: a sub-agent starts on it
   * (`SUBAGENT_STARTED.parentToolCallId`). Starting a sub-agent says the call and the calls before it
   * were not interrupted for, and the text before them was not the answer. Undefined when this run
   * has no such call, or it has not ended (its arguments are still coming).
   */
  async writtenCall(toolCallId: string): Promise<string | undefined> {
    const at = this.#entries.findIndex((entry) => entry.kind === 'tool_call' && entry.agentId === toolCallId);
    if (at !== -1) {
      const call = this.#entries[at]!;
      if (!call.ended) return undefined;
      for (const entry of this.#entries.slice(0, at + 1)) {
        if (entry.kind === undefined && entry.ended) this.#settleText(entry, 'thought');
        if (entry.kind === 'tool_call' && entry.ended && !entry.settled) this.#settleCall(entry, false);
      }
      await this.pump();
    }
    return this.#callSteps.get(toolCallId);
  }

  /** The sub-agent this lane maps ended (`SUBAGENT_FINISHED`): held text is its final answer, held calls did not wait. */
  async finishLane(): Promise<void> {
    for (const entry of this.#entries) {
      if (entry.kind === undefined) this.#settleText(entry, 'final_answer');
      if (entry.kind === 'tool_call' && !entry.settled) this.#settleCall(entry, false);
      entry.ended = true;
    }
    await this.pump();
  }

  /**
   * The agent's `ask_user` call ended. A valid one is a question the session now waits on: the core
   * has ended the run. Input that is no question is answered at once, like any tool's bad input,
   * with an `Error: …` observation, and the agent runs again to read it (PROTOCOL.md §25.1).
   */
  #asked(content: string): void {
    const check = checkToolInput({ inputSchema: AskUserInputSchema }, ASK_USER_TOOL, content);
    if (check.ok) {
      this.#waiting = true;
      return;
    }
    this.#entries.unshift({ kind: 'observation', tool: ASK_USER_TOOL, pieces: [`Error: ${check.message}`], ended: true, settled: true, result: { error: check.message } });
    this.answeredCalls += 1;
  }

  #add(key: string, entry: Entry): void {
    this.#entries.push(entry);
    this.#open.set(key, entry);
  }

  #close(key: string): void {
    const entry = this.#open.get(key);
    if (entry === undefined) return;
    entry.ended = true;
    this.#open.delete(key);
  }

  #earlierToolName(toolCallId: string): string | undefined {
    return this.earlierCalls.get(toolCallId);
  }

  #settleText(entry: Entry, kind: 'thought' | 'final_answer'): void {
    entry.kind = kind;
  }

  #settleCall(entry: Entry, waits: boolean): void {
    entry.settled = true;
    entry.waits = waits;
  }

  /** What `event` says about the entries held for it: text it follows is a thought, calls it follows were not interrupted for. */
  #settleBy(event: AgUiEvent): void {
    const decides =
      event.type === EventType.TOOL_CALL_START ||
      event.type === EventType.TOOL_CALL_RESULT ||
      event.type === EventType.REASONING_MESSAGE_START ||
      event.type === EventType.STEP_STARTED ||
      (event.type === EventType.TEXT_MESSAGE_START && !this.#entries.some((entry) => entry.agentId === event.messageId && entry.kind === undefined));
    if (!decides) return;
    const callsToo = event.type !== EventType.TOOL_CALL_START;
    for (const entry of this.#entries) {
      if (entry.kind === undefined && entry.ended) this.#settleText(entry, 'thought');
      if (entry.kind === 'tool_call' && entry.ended && !entry.settled) {
        if (event.type === EventType.TOOL_CALL_RESULT ? event.toolCallId === entry.agentId || callsToo : callsToo) this.#settleCall(entry, false);
      }
    }
  }

  /** RUN_FINISHED settles everything held: text is the final answer, and each call waits if the run was interrupted for it. */
  /**
   * RUN_FINISHED settles everything held: text is the final answer, and each call waits if the run
   * was interrupted for it. An interrupt for the agent's `ask_user` call is its question; one not
   * about a tool call becomes an `ask_user` call of the bridge's, so the session waits for the
   * answer either way (PROTOCOL.md §25.6). Only the first question is asked: the run stops there.
   */
  #finish(event: RunFinishedEvent): RunEnd {
    const interrupts: Interrupt[] = event.outcome?.type === 'interrupt' ? event.outcome.interrupts : [];
    const questions = interrupts.filter((interrupt) => !isToolInterrupt(interrupt));
    const asksUser = questions.length > 0 || this.#entries.some((entry) => entry.kind === 'tool_call' && entry.tool === ASK_USER_TOOL);
    for (const entry of this.#entries) if (entry.kind === undefined) this.#settleText(entry, asksUser ? 'thought' : 'final_answer');
    const heldCalls = this.#entries.filter((entry) => entry.kind === 'tool_call' && !entry.settled);
    const autoResume: ResumeEntry[] = [];
    let asks = false;
    if (interrupts.length > 0) this.memory.pending = { interrupts, stepIds: new Map(), approved: new Set() };
    for (const interrupt of interrupts.filter(isToolInterrupt)) {
      const call = heldCalls.find((entry) => (interrupt.toolCallId === undefined ? !entry.settled : entry.agentId === interrupt.toolCallId));
      if (call === undefined || call.settled) continue;
      call.interruptId = interrupt.id;
      if (call.writer !== undefined) this.memory.pending!.stepIds.set(interrupt.id, call.writer.stepId);
      // The agent's own question: the session waits for its answer, never for an approval.
      if (call.tool === ASK_USER_TOOL) {
        this.#settleCall(call, false);
        asks = true;
        continue;
      }
      const waits = !asks && interruptWaits(this.policy, call.tool);
      this.#settleCall(call, waits);
      if (waits) asks = true;
      else autoResume.push(approvedEntry(interrupt));
    }
    for (const entry of heldCalls) if (!entry.settled) this.#settleCall(entry, false);
    const [question] = questions;
    if (question !== undefined && !asks) {
      const input = JSON.stringify(questionOf(question));
      this.#entries.push({ kind: 'tool_call', tool: ASK_USER_TOOL, pieces: [input], ended: true, settled: true, waits: false, interruptId: question.id, question: true });
    }
    if (asks || questions.length > 0 || interrupts.length === 0) {
      // Calls let through now are answered on the resume that answers the question.
      for (const entry of autoResume) this.memory.pending?.approved?.add(entry.interruptId);
      return {};
    }
    delete this.memory.pending;
    return { autoResume };
  }
}
