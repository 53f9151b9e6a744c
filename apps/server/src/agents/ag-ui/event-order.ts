import { EventType } from '@ag-ui/core';
import { AgUiFailure } from './agent-failure.js';
import type { AgUiEvent } from './event-validation.js';

/*
 * After validation: `*_CHUNK` events expand into the start/content/end events they stand for,
 * then the order is verified (AG-UI "Streaming" and "Run lifecycle"): a run opens with
 * RUN_STARTED, a message, reasoning span, tool call or step is opened before it continues and
 * closed before RUN_FINISHED, and only RUN_STARTED or a late RUN_ERROR may follow a closed run.
 */

type Lane =
  | { kind: 'text'; messageId: string; role: string; name?: string }
  | { kind: 'tool'; toolCallId: string; toolCallName: string; parentMessageId?: string }
  | { kind: 'reasoning'; messageId: string };

/** Events that stand aside from chunk assembly: they neither close an open chunk stream nor belong to it. */
const ASIDE: ReadonlySet<string> = new Set([EventType.RAW, EventType.ACTIVITY_SNAPSHOT, EventType.ACTIVITY_DELTA, EventType.REASONING_ENCRYPTED_VALUE, EventType.SUBAGENT_STARTED]);

function conflict(what: string, id: string, field: string, given: string | undefined, open: string | undefined): void {
  if (given !== undefined && given !== open) throw new AgUiFailure(`Cannot continue ${what} '${id}': chunk ${field} '${given}' does not match the open stream's ${field} ${open === undefined ? '(absent)' : `'${open}'`}.`);
}

/** Events of the run as a whole: every open chunk stream closes before them. */
const RUN_WIDE: ReadonlySet<string> = new Set([EventType.RUN_STARTED, EventType.RUN_FINISHED, EventType.RUN_ERROR, EventType.MESSAGES_SNAPSHOT]);

/**
 * Expands chunk events: one chunk stream at a time per subagent (`subagentRunId`, the parent
 * agent's without one), so subagents streaming at the same time do not close each other's.
 */
export class ChunkExpander {
  readonly #lanes = new Map<string | undefined, Lane>();

  expand(event: AgUiEvent): AgUiEvent[] {
    const owner = (event as { subagentRunId?: string }).subagentRunId;
    const by = owner === undefined ? {} : { subagentRunId: owner };
    switch (event.type) {
      case EventType.TEXT_MESSAGE_CHUNK: {
        const lane = this.#lanes.get(owner);
        const out: AgUiEvent[] = [];
        let messageId: string;
        if (lane?.kind === 'text' && (event.messageId === undefined || event.messageId === lane.messageId)) {
          conflict('text message', lane.messageId, 'role', event.role, lane.role);
          conflict('text message', lane.messageId, 'name', event.name, lane.name);
          messageId = lane.messageId;
        } else {
          out.push(...this.#closeLane(owner));
          if (event.messageId === undefined) throw new AgUiFailure('First TEXT_MESSAGE_CHUNK must have a messageId');
          messageId = event.messageId;
          const role = event.role ?? 'assistant';
          this.#lanes.set(owner, { kind: 'text', messageId, role, ...(event.name === undefined ? {} : { name: event.name }) });
          out.push({ type: EventType.TEXT_MESSAGE_START, messageId, role, ...(event.name === undefined ? {} : { name: event.name }), ...by });
        }
        if (event.delta !== undefined) out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: event.delta, ...by });
        return out;
      }
      case EventType.TOOL_CALL_CHUNK: {
        const lane = this.#lanes.get(owner);
        const out: AgUiEvent[] = [];
        let toolCallId: string;
        if (lane?.kind === 'tool' && (event.toolCallId === undefined || event.toolCallId === lane.toolCallId)) {
          conflict('tool call', lane.toolCallId, 'toolCallName', event.toolCallName, lane.toolCallName);
          conflict('tool call', lane.toolCallId, 'parentMessageId', event.parentMessageId, lane.parentMessageId);
          toolCallId = lane.toolCallId;
        } else {
          out.push(...this.#closeLane(owner));
          if (event.toolCallId === undefined) throw new AgUiFailure('First TOOL_CALL_CHUNK must have a toolCallId');
          if (event.toolCallName === undefined) throw new AgUiFailure('First TOOL_CALL_CHUNK must have a toolCallName');
          toolCallId = event.toolCallId;
          const parent = event.parentMessageId === undefined ? {} : { parentMessageId: event.parentMessageId };
          this.#lanes.set(owner, { kind: 'tool', toolCallId, toolCallName: event.toolCallName, ...parent });
          out.push({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: event.toolCallName, ...parent, ...by });
        }
        if (event.delta !== undefined) out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: event.delta, ...by });
        return out;
      }
      case EventType.REASONING_MESSAGE_CHUNK: {
        const lane = this.#lanes.get(owner);
        const out: AgUiEvent[] = [];
        let messageId: string;
        if (lane?.kind === 'reasoning' && (event.messageId === undefined || event.messageId === lane.messageId)) {
          messageId = lane.messageId;
        } else {
          out.push(...this.#closeLane(owner));
          if (event.messageId === undefined) throw new AgUiFailure('First REASONING_MESSAGE_CHUNK must have a messageId');
          messageId = event.messageId;
          this.#lanes.set(owner, { kind: 'reasoning', messageId });
          out.push({ type: EventType.REASONING_MESSAGE_START, messageId, role: 'reasoning', ...by });
        }
        if (event.delta !== undefined) out.push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId, delta: event.delta, ...by });
        return out;
      }
      default:
        if (ASIDE.has(event.type)) return [event];
        if (RUN_WIDE.has(event.type)) return [...this.close(), event];
        // A subagent's end, or any other event of one agent, closes that agent's chunk stream only.
        return [...this.#closeLane(owner), event];
    }
  }

  /** The end of every open chunk stream (the stream's end closes them). */
  close(): AgUiEvent[] {
    return [...this.#lanes.keys()].flatMap((owner) => this.#closeLane(owner));
  }

  /** The end of `owner`'s open chunk stream, if any. */
  #closeLane(owner: string | undefined): AgUiEvent[] {
    const lane = this.#lanes.get(owner);
    this.#lanes.delete(owner);
    if (lane === undefined) return [];
    const by = owner === undefined ? {} : { subagentRunId: owner };
    if (lane.kind === 'text') return [{ type: EventType.TEXT_MESSAGE_END, messageId: lane.messageId, ...by }];
    if (lane.kind === 'tool') return [{ type: EventType.TOOL_CALL_END, toolCallId: lane.toolCallId, ...by }];
    return [{ type: EventType.REASONING_MESSAGE_END, messageId: lane.messageId, ...by }];
  }
}

type RunState = 'none' | 'active' | 'finished' | 'errored';

/** Verifies the order of expanded events; throws an `AgUiFailure` naming the first violation. */
export class OrderVerifier {
  #run: RunState = 'none';
  readonly #text = new Set<string>();
  readonly #tools = new Set<string>();
  readonly #reasoning = new Set<string>();
  readonly #spans = new Set<string>();
  readonly #steps = new Set<string>();
  readonly #subagents = new Set<string>();

  get run(): RunState {
    return this.#run;
  }

  verify(event: AgUiEvent): void {
    const type = event.type;
    if (this.#run === 'none' && type !== EventType.RUN_STARTED) throw new AgUiFailure(`First event must be 'RUN_STARTED' (got '${type}').`);
    if (this.#run === 'errored' && type !== EventType.RUN_STARTED) {
      throw new AgUiFailure(`Cannot send event type '${type}': The run has already errored with 'RUN_ERROR'. No further events can be sent.`);
    }
    if (this.#run === 'finished' && type !== EventType.RUN_STARTED && type !== EventType.RUN_ERROR) {
      throw new AgUiFailure(`Cannot send event type '${type}': The run has already finished with 'RUN_FINISHED'. Start a new run with 'RUN_STARTED'.`);
    }
    switch (event.type) {
      case EventType.RUN_STARTED:
        if (this.#run === 'active') throw new AgUiFailure("Cannot send 'RUN_STARTED' while a run is still active. The previous run must be finished with 'RUN_FINISHED' before starting a new run.");
        this.#reset();
        this.#run = 'active';
        return;
      case EventType.RUN_FINISHED:
        this.#mustBeClosed();
        this.#run = 'finished';
        return;
      case EventType.RUN_ERROR:
        this.#run = 'errored';
        return;
      case EventType.TEXT_MESSAGE_START:
        return open(this.#text, event.messageId, `Cannot send 'TEXT_MESSAGE_START' event: A text message with ID '${event.messageId}' is already in progress. Complete it with 'TEXT_MESSAGE_END' first.`);
      case EventType.TEXT_MESSAGE_CONTENT:
        return mustBeOpen(this.#text, event.messageId, `Cannot send 'TEXT_MESSAGE_CONTENT' event: No active text message found with ID '${event.messageId}'. Start a text message with 'TEXT_MESSAGE_START' first.`);
      case EventType.TEXT_MESSAGE_END:
        return shut(this.#text, event.messageId, `Cannot send 'TEXT_MESSAGE_END' event: No active text message found with ID '${event.messageId}'. A 'TEXT_MESSAGE_START' event must be sent first.`);
      case EventType.TOOL_CALL_START:
        return open(this.#tools, event.toolCallId, `Cannot send 'TOOL_CALL_START' event: A tool call with ID '${event.toolCallId}' is already in progress. Complete it with 'TOOL_CALL_END' first.`);
      case EventType.TOOL_CALL_ARGS:
        return mustBeOpen(this.#tools, event.toolCallId, `Cannot send 'TOOL_CALL_ARGS' event: No active tool call found with ID '${event.toolCallId}'. Start a tool call with 'TOOL_CALL_START' first.`);
      case EventType.TOOL_CALL_END:
        return shut(this.#tools, event.toolCallId, `Cannot send 'TOOL_CALL_END' event: No active tool call found with ID '${event.toolCallId}'. A 'TOOL_CALL_START' event must be sent first.`);
      case EventType.REASONING_START:
        return open(this.#spans, event.messageId, `Cannot send 'REASONING_START' event: A reasoning span with ID '${event.messageId}' is already in progress.`);
      case EventType.REASONING_END:
        return shut(this.#spans, event.messageId, `Cannot send 'REASONING_END' event: No active reasoning span found with ID '${event.messageId}'.`);
      case EventType.REASONING_MESSAGE_START:
        return open(this.#reasoning, event.messageId, `Cannot send 'REASONING_MESSAGE_START' event: A reasoning message with ID '${event.messageId}' is already in progress.`);
      case EventType.REASONING_MESSAGE_CONTENT:
        return mustBeOpen(this.#reasoning, event.messageId, `Cannot send 'REASONING_MESSAGE_CONTENT' event: No active reasoning message found with ID '${event.messageId}'.`);
      case EventType.REASONING_MESSAGE_END:
        return shut(this.#reasoning, event.messageId, `Cannot send 'REASONING_MESSAGE_END' event: No active reasoning message found with ID '${event.messageId}'.`);
      case EventType.STEP_STARTED:
        return open(this.#steps, event.stepName, `Step "${event.stepName}" is already active for 'STEP_STARTED'.`);
      case EventType.STEP_FINISHED:
        return shut(this.#steps, event.stepName, `Cannot send 'STEP_FINISHED' for step "${event.stepName}" that was not started.`);
      case EventType.SUBAGENT_STARTED:
        return open(this.#subagents, event.subagentRunId, `Cannot send 'SUBAGENT_STARTED': subagent '${event.subagentRunId}' is already active. Finish it with 'SUBAGENT_FINISHED' first.`);
      case EventType.SUBAGENT_FINISHED:
      case EventType.SUBAGENT_ERROR:
        return shut(this.#subagents, event.subagentRunId, `Cannot send '${event.type}': no active subagent found with ID '${event.subagentRunId}'. A 'SUBAGENT_STARTED' event must be sent first.`);
      default:
        return;
    }
  }

  /** The stream ended: it must have closed its run. */
  end(): void {
    if (this.#run === 'none') throw new AgUiFailure("The AG-UI agent's stream ended before RUN_STARTED.");
    if (this.#run === 'active') throw new AgUiFailure("The AG-UI agent's stream ended before RUN_FINISHED: the run was cut off.");
  }

  #mustBeClosed(): void {
    const open: Array<[string, Set<string>]> = [
      ['text messages', this.#text],
      ['tool calls', this.#tools],
      ['reasoning messages', this.#reasoning],
      ['reasoning spans', this.#spans],
      ['steps', this.#steps],
      ['subagents', this.#subagents],
    ];
    for (const [what, ids] of open) {
      if (ids.size > 0) throw new AgUiFailure(`Cannot send 'RUN_FINISHED' while ${what} are still active: ${[...ids].join(', ')}`);
    }
  }

  #reset(): void {
    for (const ids of [this.#text, this.#tools, this.#reasoning, this.#spans, this.#steps, this.#subagents]) ids.clear();
  }
}

function open(ids: Set<string>, id: string, violation: string): void {
  if (ids.has(id)) throw new AgUiFailure(violation);
  ids.add(id);
}

function mustBeOpen(ids: Set<string>, id: string, violation: string): void {
  if (!ids.has(id)) throw new AgUiFailure(violation);
}

function shut(ids: Set<string>, id: string, violation: string): void {
  if (!ids.delete(id)) throw new AgUiFailure(violation);
}
