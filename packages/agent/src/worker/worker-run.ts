import { AGENT_FIELD_LIMITS, type AgentErrorFrame, type RunStart, type ToolRunResult, type WorkerMessage } from '@interthought/protocol';
import type { ModelCallReport, StepSink, StepWriter } from '../agent.js';
import type { AgentToolbox } from '../agent-tools.js';
import { RunOutbox } from './run-outbox.js';
import { ServerToolError, type ServerToolResult, type WorkerAgent, type WorkerRunContext } from './worker-agent.js';
import { gatedToolbox } from './worker-toolbox.js';
import { WorkerStepWriter, type StepOwner } from './worker-step-writer.js';

/** What a run needs of the connection it came over. */
export interface RunLink {
  send(frame: WorkerMessage): void;
  nextRequestId(): string;
  /** Frames a run may send in one event-loop turn (see `RunOutbox`). */
  readonly turnBudget: number;
  /** Whether the connection may send more now (see `SendWindow`). */
  readonly hasRoom: boolean;
  /** The run is over and nothing of it waits to be sent. */
  released(run: WorkerRun, outcome: 'completed' | 'failed' | 'aborted'): void;
}

/** The kinds an agent may write (never `user_message`, which only the user says). */
const WORKER_KINDS: ReadonlySet<string> = new Set(['thought', 'action', 'tool_call', 'observation', 'final_answer']);

function abortError(reason: string): DOMException {
  return new DOMException(reason, 'AbortError');
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.trim() || 'The agent failed.').slice(0, AGENT_FIELD_LIMITS.failMessageMax);
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting when an abort rejects it.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/**
 * One `run.start` on a worker: the agent's own `run(context)`, with a `StepSink` whose writers
 * send `step.start/delta/end`, `usage` and `notice`, then `run.end` (or `run.fail` when the agent
 * threw). `run.abort` aborts the context's signal; `flow` holds its writers (PROTOCOL.md Part II §A5–§A7).
 */
export class WorkerRun implements StepOwner {
  readonly runId: string;
  readonly outbox: RunOutbox;
  readonly #start: RunStart;
  readonly #link: RunLink;
  readonly #controller = new AbortController();
  readonly #toolRuns = new Map<string, Deferred<ServerToolResult>>();
  #refs = 0;
  #open: WorkerStepWriter | undefined;
  /** The `tool_call` the server has not cleared yet (its tool must not run before). */
  #uncleared: { ref: string; cleared: Deferred<void> } | undefined;

  constructor(start: RunStart, link: RunLink) {
    this.runId = start.runId;
    this.#start = start;
    this.#link = link;
    this.outbox = new RunOutbox((frame) => link.send(frame), link.turnBudget, () => link.hasRoom);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Run `agent` to its end; never rejects. */
  async execute(agent: WorkerAgent, tools: AgentToolbox): Promise<void> {
    let outcome: 'completed' | 'failed' | 'aborted';
    try {
      await agent.run(this.#context(tools));
      this.signal.throwIfAborted();
      this.#endOpenStep();
      this.outbox.push({ type: 'run.end', runId: this.runId });
      outcome = 'completed';
    } catch (error) {
      if (this.signal.aborted) {
        outcome = 'aborted';
      } else {
        this.outbox.push({ type: 'run.fail', runId: this.runId, message: messageOf(error) });
        outcome = 'failed';
      }
    }
    // run.end may wait behind a paused flow: the run stays reachable until it is out.
    await this.outbox.drained().catch(() => undefined);
    this.#link.released(this, this.signal.aborted ? 'aborted' : outcome);
  }

  /** `run.abort`, or the connection is gone: the agent stops, nothing more is sent. */
  abort(reason: string): void {
    if (this.signal.aborted) return;
    const error = abortError(reason);
    this.#controller.abort(error);
    this.outbox.close(error);
    this.#uncleared?.cleared.reject(error);
    for (const pending of this.#toolRuns.values()) pending.reject(error);
    this.#toolRuns.clear();
  }

  setPaused(paused: boolean): void {
    this.outbox.setPaused(paused);
  }

  /** `call.cleared`: the tool of that call may run now. */
  callCleared(ref: string): void {
    if (this.#uncleared?.ref !== ref) return;
    this.#uncleared.cleared.resolve();
    this.#uncleared = undefined;
  }

  /** A `tool.result` or an `error` answering one of this run's `tool.run`; false when it answers none. */
  toolAnswer(frame: ToolRunResult | AgentErrorFrame): boolean {
    const requestId = frame.requestId;
    const pending = requestId === undefined ? undefined : this.#toolRuns.get(requestId);
    if (requestId === undefined || pending === undefined) return false;
    this.#toolRuns.delete(requestId);
    if (frame.type === 'tool.result') {
      const { ok, output, error, text, callStepId, observationStepId } = frame;
      pending.resolve({ ok, text, callStepId, observationStepId, ...(output === undefined ? {} : { output }), ...(error === undefined ? {} : { error }) });
    } else if (frame.code === 'RUN_ABORTED') {
      // The call waits for approval (run.abort follows) or the run is over: the agent stops.
      this.abort(frame.message);
      pending.reject(this.signal.reason);
    } else {
      pending.reject(new ServerToolError(frame));
    }
    return true;
  }

  ended(writer: WorkerStepWriter, result: unknown): void {
    if (this.#open === writer) this.#open = undefined;
    this.outbox.push({ type: 'step.end', runId: this.runId, ref: writer.stepId, ...(result === undefined ? {} : { result }) });
    if (writer.kind === 'tool_call') this.#uncleared = { ref: writer.stepId, cleared: deferred<void>() };
  }

  #context(tools: AgentToolbox): WorkerRunContext {
    const start = this.#start;
    return {
      runId: this.runId,
      sessionId: start.sessionId,
      task: start.task,
      chain: start.chain,
      options: start.options,
      ...(start.lessons === undefined ? {} : { lessons: start.lessons }),
      ...(start.call === undefined ? {} : { call: start.call }),
      tools: gatedToolbox(tools, () => this.#untilCleared()),
      sink: this.#sink(),
      signal: this.signal,
      runServerTool: (tool, input) => this.#runServerTool(tool, input),
    };
  }

  #untilCleared(): Promise<void> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    return this.#uncleared?.cleared.promise ?? Promise.resolve();
  }

  #sink(): StepSink {
    return {
      start: (kind, extra): StepWriter => {
        this.signal.throwIfAborted();
        if (!WORKER_KINDS.has(kind)) throw new TypeError(`Unknown step kind "${String(kind)}"; use one of ${[...WORKER_KINDS].join(', ')}.`);
        // Starting a step ends the open one, on the server as here.
        this.#open?.markEnded();
        const writer = new WorkerStepWriter(`s${++this.#refs}`, kind, this);
        this.#open = writer;
        this.outbox.push({ type: 'step.start', runId: this.runId, ref: writer.stepId, kind: kind as 'thought', ...(extra?.tool === undefined ? {} : { tool: extra.tool }) });
        return writer;
      },
      notice: (detail) => {
        if (this.signal.aborted || typeof detail !== 'string' || detail.length === 0) return;
        this.outbox.push({ type: 'notice', runId: this.runId, detail: detail.slice(0, AGENT_FIELD_LIMITS.noticeMax) });
      },
      usage: (report: ModelCallReport) => {
        const frame: WorkerMessage = {
          type: 'usage',
          runId: this.runId,
          model: report.model,
          usage: report.usage,
          refs: [...report.stepIds],
          ...(report.timeToFirstTokenMs === undefined ? {} : { timeToFirstTokenMs: report.timeToFirstTokenMs }),
          ...(report.durationMs === undefined ? {} : { durationMs: report.durationMs }),
        };
        // Accepted for an aborted run too: the tokens were spent all the same.
        if (this.signal.aborted) this.#link.send(frame);
        else this.outbox.push(frame);
      },
    };
  }

  #endOpenStep(): void {
    this.#open?.end();
  }

  #runServerTool(tool: string, input: unknown): Promise<ServerToolResult> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    const id = this.#link.nextRequestId();
    const pending = deferred<ServerToolResult>();
    this.#toolRuns.set(id, pending);
    // The server ends the open step before it writes the call.
    this.#open?.markEnded();
    this.#open = undefined;
    this.outbox.push({ type: 'tool.run', id, runId: this.runId, tool, input });
    return pending.promise;
  }
}
