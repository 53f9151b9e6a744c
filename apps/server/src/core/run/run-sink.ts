import { DELEGATE_TOOL, StepKindSchema, type BreakpointMatch, type LessonSource, type SessionEvent, type Step, type StepKind } from '@interthought/protocol';
import type { ModelCallReport, StepSink, StepWriter, SubagentSink } from '@interthought/agent';
import type { LiveSession } from '../sessions/live-session.js';
import type { Backlog } from '../persistence/outbox.js';
import { pace } from './pace.js';
import { isAskUserCall } from '../commands/questions.js';
import { reportProblem } from './usage-ledger.js';
import type { JudgedCall } from '../commands/standing-decisions.js';

/** What a sink needs of the run it belongs to. */
export interface RunScope {
  readonly session: LiveSession;
  /** The sub-agent's scope its steps carry and chain in (PROTOCOL.md §24.2); `undefined` for the session's own chain. */
  readonly scope: string | undefined;
  readonly signal: AbortSignal;
  /** Still the session's run and not aborted: only then may it emit. */
  readonly live: boolean;
  readonly tokenDelayMs: number;
  /** How deep sub-agents may nest on this server (PROTOCOL.md §24.1): a scope its agent opens deeper is refused. */
  readonly maxSubagentDepth: number;
  /** The server's backlog of events to write and send: writers wait while it is over its mark. */
  readonly backlog?: Backlog;
  newId(): string;
  /** The session's policy on the call `step` just completed, whose `step.completed` is appended at `at` (PROTOCOL.md §25). */
  policyVerdictOn(step: Step, at: string): JudgedCall;
  /** The completed call `step` waits for the user: the run ends here, before its tool can run. */
  waitForApproval(step: Step): void;
  /** A rule denied the completed call `step`: the run ends, the refusal is recorded, and a new run goes on after it (§25.4). */
  refuseByRule(step: Step, verdict: JudgedCall): void;
  /** The completed `ask_user` call `step` asks the user (PROTOCOL.md §25.1): the run ends here, and its scope waits for the answer. */
  waitForInput(step: Step): void;
  /** A step ended: messages the user sent meanwhile to steer the agent may reach the chain now. */
  atStepBoundary(): void;
  /** A model call of this run used tokens (PROTOCOL.md §22): record them, and stop the session if they reach its budget. */
  recordUsage(report: ModelCallReport): void;
  /** The breakpoint of the session's options that stops the run at the completed `step`, if any (PROTOCOL.md §25.5). */
  breakpointOn(step: Step): BreakpointMatch | undefined;
  /** A breakpoint matched the completed `step`: the run ends here, before anything acts on it, and the session pauses. */
  stopAtBreakpoint(step: Step, match: BreakpointMatch): void;
}

/** The kinds an agent may write: every kind but `user_message`, which only the user says. */
const STEP_KINDS: ReadonlySet<string> = new Set(StepKindSchema.options.filter((kind) => kind !== 'user_message'));
/** Notices are one-line conditions; a longer one is cut so a chatty agent cannot bloat the log. */
const NOTICE_MAX = 1_000;

/** Why a run that is not live cannot write: its abort reason, or that it is over. */
function deadRunError(scope: RunScope): unknown {
  if (scope.signal.aborted) return scope.signal.reason;
  return new Error('This run is over: its session has moved on, so it can no longer write steps.');
}

/** A JSON copy of a tool result, so the log holds exactly what clients will receive. */
function jsonCopy(value: unknown): unknown {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('A step result must be JSON-serialisable (got a function, symbol or undefined).');
  return JSON.parse(text) as unknown;
}

/**
 * The `StepSink` one run of an agent writes through. Every emission is guarded by the run's
 * identity: once the run is aborted (correction, cancel, shutdown) or over, `start` throws,
 * `write` rejects, and `end`/`notice` do nothing, so a stale run can never touch the session.
 */
export class RunSink implements StepSink {
  readonly #scope: RunScope;
  #open: RunStepWriter | undefined;

  constructor(scope: RunScope) {
    this.#scope = scope;
  }

  /** `extra.lessons` is the server's own: it marks the lessons step it writes (`lessons-step.ts`); agents never pass it. */
  start(kind: StepKind, extra?: { tool?: string; lessons?: LessonSource[] }): StepWriter {
    const scope = this.#scope;
    if (!scope.live) throw deadRunError(scope);
    if (!STEP_KINDS.has(kind)) throw new TypeError(`Unknown step kind "${String(kind)}"; use one of ${[...STEP_KINDS].join(', ')}.`);
    if (extra?.tool !== undefined && typeof extra.tool !== 'string') throw new TypeError('A step\'s tool must be a tool name.');
    // A step left open would stream forever; starting the next one finishes it.
    this.closeOpenStep();
    const { session } = scope;
    const stepId = scope.newId();
    const chain = session.chainOf(scope.scope);
    const head = chain[chain.length - 1] ?? null;
    const event: SessionEvent = {
      type: 'step.started',
      ...session.nextBase(),
      step: {
        stepId,
        parentId: head,
        index: chain.length,
        kind,
        status: 'streaming',
        content: '',
        revision: session.state.session.revision,
        ...(extra?.tool === undefined ? {} : { tool: extra.tool }),
        ...(extra?.lessons === undefined ? {} : { lessons: extra.lessons }),
        ...(scope.scope === undefined ? {} : { scope: scope.scope }),
      },
    };
    session.append(event);
    const writer = new RunStepWriter(scope, stepId, () => {
      if (this.#open === writer) this.#open = undefined;
    });
    this.#open = writer;
    return writer;
  }

  notice(detail: string): void {
    const scope = this.#scope;
    if (!scope.live || typeof detail !== 'string' || detail.length === 0) return;
    const { session } = scope;
    session.setStatus(session.status, { detail: detail.slice(0, NOTICE_MAX) });
  }

  /**
   * Record a model call's usage. Accepted from a run that is no longer live (the money was spent
   * before a correction or an approval wait stopped it); ignored once the session is deleted.
   */
  usage(report: ModelCallReport): void {
    const scope = this.#scope;
    if (scope.session.deleted) return;
    const problem = reportProblem(report, scope.session);
    if (problem !== undefined) throw new TypeError(`A model call's usage cannot be recorded: ${problem}.`);
    scope.recordUsage(report);
  }

  /** Finish the step still streaming, if any, with the text it has (when a run ends or moves on). */
  closeOpenStep(): void {
    this.#open?.end();
  }

  /**
   * Open the scope of a sub-agent the run's own agent runs (PROTOCOL.md §24: an AG-UI agent's
   * `SUBAGENT_STARTED`) under a completed delegate call of this sink's chain: `subagent.started`
   * now, and a sink whose steps carry the scope, alive as long as this run is.
   */
  openSubagent(call: { callStepId: string; name: string; agent: string; task: string }): SubagentSink {
    const parent = this.#scope;
    if (!parent.live) throw deadRunError(parent);
    const { session } = parent;
    const step = session.state.steps.get(call.callStepId);
    const onChain = session.chainOf(parent.scope).includes(call.callStepId);
    if (step === undefined || step.kind !== 'tool_call' || step.tool !== DELEGATE_TOOL || step.status === 'streaming' || !onChain) {
      throw new TypeError(`A sub-agent opens under a completed ${DELEGATE_TOOL} tool call of its run's chain; ${call.callStepId} is none.`);
    }
    if (session.state.subagents.has(step.stepId)) throw new TypeError(`The sub-agent of ${step.stepId} was opened already.`);
    for (const field of ['agent', 'task'] as const) {
      if (typeof call[field] !== 'string' || call[field].length === 0) throw new TypeError(`A sub-agent's ${field} must be a non-empty string.`);
    }
    const depth = (parent.scope === undefined ? 0 : (session.state.subagents.get(parent.scope)?.depth ?? 0)) + 1;
    if (depth > parent.maxSubagentDepth) {
      throw new TypeError(`Sub-agents nest at most ${parent.maxSubagentDepth} deep on this server (INTERTHOUGHT_MAX_SUBAGENT_DEPTH), and this one would be at depth ${depth}.`);
    }
    const name = typeof call.name === 'string' && call.name.length > 0 ? call.name.slice(0, 80) : call.agent;
    session.append({
      type: 'subagent.started',
      ...session.nextBase(),
      scope: step.stepId,
      ...(parent.scope === undefined ? {} : { parentScope: parent.scope }),
      depth,
      name,
      agent: call.agent,
      task: call.task,
    });
    return new OpenedSubagentSink(new OpenedScope(parent, step.stepId));
  }
}

/**
 * The scope of a sub-agent its parent's own agent runs: it writes while the parent run may, its
 * calls never wait for the policy (the agent says when it stopped to ask), and it is no step
 * boundary for the user's messages, which go on the session's own chain.
 */
class OpenedScope implements RunScope {
  constructor(
    readonly parent: RunScope,
    readonly scope: string,
  ) {}

  get session(): LiveSession {
    return this.parent.session;
  }
  get signal(): AbortSignal {
    return this.parent.signal;
  }
  get live(): boolean {
    return this.parent.live;
  }
  get tokenDelayMs(): number {
    return this.parent.tokenDelayMs;
  }
  get maxSubagentDepth(): number {
    return this.parent.maxSubagentDepth;
  }
  get backlog(): Backlog | undefined {
    return this.parent.backlog;
  }
  newId(): string {
    return this.parent.newId();
  }
  policyVerdictOn(): JudgedCall {
    return { decision: 'allow' };
  }
  waitForApproval(step: Step): void {
    this.parent.waitForApproval(step);
  }
  refuseByRule(step: Step, verdict: JudgedCall): void {
    this.parent.refuseByRule(step, verdict);
  }
  waitForInput(step: Step): void {
    this.parent.waitForInput(step);
  }
  atStepBoundary(): void {}
  recordUsage(report: ModelCallReport): void {
    this.parent.recordUsage(report);
  }
  // Like an approval wait, a stop here ends the run of the agent that opened the scope: it is the one resumed.
  breakpointOn(step: Step): BreakpointMatch | undefined {
    return this.parent.breakpointOn(step);
  }
  stopAtBreakpoint(step: Step, match: BreakpointMatch): void {
    this.parent.stopAtBreakpoint(step, match);
  }
}

/** What `openSubagent` returns: a sink in the scope, and `finish` for the sub-agent's end. */
class OpenedSubagentSink extends RunSink implements SubagentSink {
  readonly #opened: OpenedScope;
  #finished = false;

  constructor(opened: OpenedScope) {
    super(opened);
    this.#opened = opened;
  }

  get scope(): string {
    return this.#opened.scope;
  }

  finish(outcome: { status: 'completed' | 'failed' | 'cancelled'; error?: string }): void {
    if (this.#finished || !this.#opened.live) return;
    if (outcome.status !== 'completed' && outcome.status !== 'failed' && outcome.status !== 'cancelled') {
      throw new TypeError('A sub-agent finishes completed, failed or cancelled.');
    }
    this.#finished = true;
    this.closeOpenStep();
    const { session } = this.#opened;
    const event: SessionEvent = { type: 'subagent.status', ...session.nextBase(), scope: this.scope, status: outcome.status };
    if (typeof outcome.error === 'string' && outcome.error.length > 0) event.error = outcome.error;
    session.append(event);
  }
}

class RunStepWriter implements StepWriter {
  readonly stepId: string;
  readonly #scope: RunScope;
  readonly #onEnd: () => void;
  #ended = false;

  constructor(scope: RunScope, stepId: string, onEnd: () => void) {
    this.#scope = scope;
    this.stepId = stepId;
    this.#onEnd = onEnd;
  }

  write(text: string): Promise<void> {
    const refusal = this.#refusal(text);
    if (refusal !== undefined) return Promise.reject(refusal);
    const { gate } = this.#scope.session;
    // A paused session holds the writer before its token, e.g. a new run after a correction while paused.
    if (gate.paused) return gate.wait(this.#scope.signal).then(() => this.#emitAndPace(text));
    return this.#emitAndPace(text);
  }

  end(extra?: { result?: unknown; waitsForApproval?: boolean }): void {
    if (this.#ended) return;
    const scope = this.#scope;
    if (!scope.live) {
      this.#finish();
      return;
    }
    const result = extra?.result === undefined ? undefined : jsonCopy(extra.result);
    this.#finish();
    const { session } = scope;
    const step = session.state.steps.get(this.stepId);
    if (step === undefined || step.status !== 'streaming') return;
    const event: SessionEvent = { type: 'step.completed', ...session.nextBase(), stepId: this.stepId, content: step.content };
    if (step.tool !== undefined) event.tool = step.tool;
    if (result !== undefined) event.result = result;
    // Judged before it is appended: a standing decision (a rule, a remembered approval) goes on its step.completed (§25.3, §25.4).
    // A bridge that says itself whether the call waits (AG-UI) decided already.
    const verdict = step.kind === 'tool_call' && extra?.waitsForApproval === undefined ? scope.policyVerdictOn(step, event.at) : undefined;
    if (verdict?.approval !== undefined) event.approval = verdict.approval;
    session.append(event);
    // A valid question stops the run before anything else may judge the call (PROTOCOL.md §25 intro, order 1).
    if (step.kind === 'tool_call' && isAskUserCall(step)) {
      scope.waitForInput(step);
      return;
    }
    if (verdict?.decision === 'deny') {
      scope.refuseByRule(step, verdict);
      return;
    }
    if (step.kind === 'tool_call' && (extra?.waitsForApproval ?? verdict?.decision === 'ask')) {
      scope.waitForApproval(step);
      return;
    }
    const breakpoint = scope.breakpointOn(step);
    if (breakpoint !== undefined) {
      scope.stopAtBreakpoint(step, breakpoint);
      return;
    }
    scope.atStepBoundary();
  }

  backpressure(): Promise<void> | undefined {
    const { backlog, signal } = this.#scope;
    if (backlog === undefined || !backlog.backlogged) return undefined;
    return untilDrained(backlog, signal);
  }

  #finish(): void {
    this.#ended = true;
    this.#onEnd();
  }

  #refusal(text: unknown): unknown {
    if (!this.#scope.live) return deadRunError(this.#scope);
    if (this.#ended) return new Error(`Step ${this.stepId} has ended; start a new step to write more.`);
    if (typeof text !== 'string') return new TypeError('StepWriter.write takes a string.');
    return undefined;
  }

  #emitAndPace(text: string): Promise<void> {
    const refusal = this.#refusal(text);
    if (refusal !== undefined) return Promise.reject(refusal);
    const { session, signal, tokenDelayMs } = this.#scope;
    if (text.length > 0) session.append({ type: 'step.delta', ...session.nextBase(), stepId: this.stepId, text });
    // The server's backlog holds the agent until it is sent, then pacing; pause holds it after its current token.
    const backlog = this.backpressure();
    const paced = backlog === undefined ? pace(tokenDelayMs, signal) : backlog.then(() => pace(tokenDelayMs, signal));
    return paced.then(() => session.gate.wait(signal));
  }
}

/** The backlog's drain, or the run's abort reason if it aborts first. */
function untilDrained(backlog: Backlog, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    backlog.drained().then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, reject);
  });
}
