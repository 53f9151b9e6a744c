import { EventType, type SubagentErrorEvent, type SubagentFinishedEvent, type SubagentStartedEvent } from '@ag-ui/core';
import { ASK_USER_TOOL } from '@interthought/protocol';
import type { StepSink, SubagentSink } from '@interthought/agent';
import { AgUiFailure } from './agent-failure.js';
import type { AgUiEvent } from './event-validation.js';
import type { RunEnd, StepMapper } from './step-mapper.js';

/*
 * An AG-UI agent's subagents as scopes (PROTOCOL.md §24.9): `SUBAGENT_STARTED` opens a scope on the
 * tool call it names (`parentToolCallId`, a call of its parent's lane), the events that carry its
 * `subagentRunId` are mapped by that scope's own mapper into its own sink, and
 * `SUBAGENT_FINISHED` / `SUBAGENT_ERROR` end it. The events of the parent agent (no
 * `subagentRunId`) and of the run itself go to the root mapper, as before sub-agents.
 */

interface Lane {
  readonly subagentRunId: string;
  readonly sink: SubagentSink;
  readonly mapper: StepMapper;
  ended: boolean;
}

/** Makes the mapper of one lane, writing through `sink`. */
export type MapperFactory = (sink: StepSink) => StepMapper;

export class SubagentRouter {
  readonly #lanes = new Map<string, Lane>();

  constructor(
    readonly root: StepMapper,
    private readonly rootSink: StepSink,
    private readonly mapperFor: MapperFactory,
  ) {}

  /** Whether a step now waits for the user's approval (the core has ended the run). */
  get waiting(): boolean {
    return this.root.waiting || [...this.#lanes.values()].some((lane) => lane.mapper.waiting);
  }

  async handle(event: AgUiEvent): Promise<RunEnd | undefined> {
    switch (event.type) {
      case EventType.SUBAGENT_STARTED:
        await this.#start(event);
        return undefined;
      case EventType.SUBAGENT_FINISHED:
      case EventType.SUBAGENT_ERROR:
        await this.#end(event);
        return undefined;
      default: {
        const subagentRunId = (event as { subagentRunId?: string }).subagentRunId;
        if (subagentRunId === undefined) return this.root.handle(event);
        const lane = this.#live(subagentRunId, event.type);
        if (event.type === EventType.TOOL_CALL_START && event.toolCallName === ASK_USER_TOOL) {
          // Its question would wait on a scope the bridge cannot resume: refused like its interrupts, before any step is written.
          throw new AgUiFailure(`The AG-UI agent's subagent '${subagentRunId}' called ${ASK_USER_TOOL}: questions inside a sub-agent are not bridged by this server; only the agent's own run may ask.`);
        }
        await lane.mapper.handle(event);
        return undefined;
      }
    }
  }

  /** The run failed: what every lane holds is written as thoughts, and the sub-agents still open fail with it. */
  async fail(message: string): Promise<void> {
    for (const mapper of [this.root, ...[...this.#lanes.values()].map((lane) => lane.mapper)]) {
      mapper.flushAsThoughts();
      await mapper.pump().catch(() => undefined);
    }
    for (const lane of this.#lanes.values()) if (!lane.ended) this.#close(lane, { status: 'failed', error: message });
  }

  async #start(event: SubagentStartedEvent): Promise<void> {
    const id = event.subagentRunId;
    if (this.#lanes.has(id)) throw new AgUiFailure(`The AG-UI agent started subagent '${id}' twice: a subagentRunId names one invocation.`);
    const parent = event.parentSubagentRunId === undefined ? undefined : this.#live(event.parentSubagentRunId, event.type);
    const callId = event.parentToolCallId;
    if (callId === undefined) {
      throw new AgUiFailure(`The AG-UI agent started subagent '${id}' without a parentToolCallId: a sub-agent here is started by a tool call of its parent.`);
    }
    const parentMapper = parent?.mapper ?? this.root;
    const callStepId = await parentMapper.writtenCall(callId);
    if (callStepId === undefined) {
      throw new AgUiFailure(`The AG-UI agent started subagent '${id}' on tool call '${callId}', which its ${parent === undefined ? 'run' : `subagent '${parent.subagentRunId}'`} has not made (or not ended).`);
    }
    const parentSink = parent?.sink ?? this.rootSink;
    if (parentSink.openSubagent === undefined) throw new AgUiFailure(`The AG-UI agent started subagent '${id}', but this server runs no sub-agents.`);
    const call = parentMapper.written.find((step) => step.stepId === callStepId);
    let sink: SubagentSink;
    try {
      sink = parentSink.openSubagent({ callStepId, name: event.name, agent: agentOf(event), task: taskOf(event, call?.content) });
    } catch (error) {
      throw new AgUiFailure(`The AG-UI agent's subagent '${id}' cannot start: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.#lanes.set(id, { subagentRunId: id, sink, mapper: this.mapperFor(sink), ended: false });
  }

  async #end(event: SubagentFinishedEvent | SubagentErrorEvent): Promise<void> {
    const lane = this.#live(event.subagentRunId, event.type);
    if (event.type === EventType.SUBAGENT_ERROR) {
      lane.mapper.flushAsThoughts();
      await lane.mapper.pump();
      this.#close(lane, { status: 'failed', error: event.message });
      return;
    }
    if (event.outcome?.type === 'suspended') {
      throw new AgUiFailure(`The AG-UI agent suspended subagent '${lane.subagentRunId}' on an interrupt: interrupts inside a sub-agent are not supported by this server's AG-UI bridge.`);
    }
    await lane.mapper.finishLane();
    this.#close(lane, { status: 'completed' });
  }

  #close(lane: Lane, outcome: { status: 'completed' | 'failed'; error?: string }): void {
    lane.ended = true;
    lane.sink.finish(outcome);
  }

  /** The open lane `subagentRunId` names; an unknown or ended one is the agent's mistake. */
  #live(subagentRunId: string, type: string): Lane {
    const lane = this.#lanes.get(subagentRunId);
    if (lane === undefined) throw new AgUiFailure(`The AG-UI agent sent ${type} for subagent '${subagentRunId}', which no SUBAGENT_STARTED opened.`);
    if (lane.ended) throw new AgUiFailure(`The AG-UI agent sent ${type} for subagent '${subagentRunId}' after it ended.`);
    return lane;
  }
}

/** Which agent runs it: what an Interthought server serving AG-UI says (`metadata.interthought.agent`), else its name. */
function agentOf(event: SubagentStartedEvent): string {
  const agent = (event.metadata as { interthought?: { agent?: unknown } } | undefined)?.interthought?.agent;
  return typeof agent === 'string' && agent !== '' ? agent : event.name;
}

/** The delegated task: the call's `task` argument, else the subagent's description, else the call's arguments, else its name. */
function taskOf(event: SubagentStartedEvent, args: string | undefined): string {
  if (args !== undefined) {
    try {
      const parsed = JSON.parse(args) as { task?: unknown };
      if (typeof parsed.task === 'string' && parsed.task.trim() !== '') return parsed.task;
    } catch {
      // Not JSON: the arguments are the task as they stand, below.
    }
  }
  if (event.description !== undefined && event.description.trim() !== '') return event.description;
  return args !== undefined && args.trim() !== '' ? args : event.name;
}
