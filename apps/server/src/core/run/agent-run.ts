import type { BreakpointMatch, Step } from '@interthought/protocol';
import { isRunInterrupted, type Agent, type AgentToolbox, type ModelCallReport } from '@interthought/agent';
import type { ToolCatalog } from '../ports/tool-catalog.js';
import type { LiveSession, SessionRun } from '../sessions/live-session.js';
import type { Backlog } from '../persistence/outbox.js';
import { judgeCall, type JudgedCall } from '../commands/standing-decisions.js';
import { unansweredQuestion } from '../commands/questions.js';
import { undecidedCall } from '../commands/approvals.js';
import { abortError } from './pace.js';
import { RunSink, type RunScope } from './run-sink.js';
import { breakpointOn } from './breakpoint-stop.js';
import type { TraceTurn } from '../ports/turn-tracer.js';
import type { LessonsSource } from '../ports/lessons-source.js';
import { guidanceOf, writeLessonsStep } from './lessons-step.js';

export interface RunDeps {
  tools: ToolCatalog;
  newId: () => string;
  defaultTokenDelayMs: number;
  /** How a run is traced (the server's OpenTelemetry spans; a no-op without). */
  traceTurn: TraceTurn;
  /** The server's backlog (the outbox): a run's writes wait while it is over its mark. */
  backlog?: Backlog;
  /** Where a lessons agent's runs get their lessons (PROTOCOL.md §26.4); without, no run has any. */
  lessons?: LessonsSource;
  /** A completed tool call of `run` waits for the user: end the run and record the request. */
  awaitApproval(run: AgentRun, step: Step): void;
  /** A rule denied a completed tool call of `run`: end the run, record the refusal, and go on after it (PROTOCOL.md §25.4). */
  refuseByRule(run: AgentRun, step: Step, verdict: JudgedCall): void;
  /** A completed `ask_user` call of `run` asks the user (PROTOCOL.md §25.1): end the run, record the question, wait. */
  awaitInput(run: AgentRun, step: Step): void;
  /** A step of `run` ended: steering messages may reach the chain (and the run give way to a new one). */
  atStepBoundary(run: AgentRun): void;
  /** A model call of `run` used tokens: record them, and stop the session if they reach its budget. */
  recordUsage(run: AgentRun, report: ModelCallReport): void;
  /** A breakpoint matched a completed step of `run` (PROTOCOL.md §25.5): end the run and pause the session. */
  stopAtBreakpoint(run: AgentRun, step: Step, match: BreakpointMatch): void;
  /**
   * The agent's run ended by itself (`failure` when it threw). True when the session goes on with a
   * new turn (messages were queued for it); false when the run's end is the session's status.
   */
  continueAfterTurn(run: AgentRun): boolean;
  /** The sub-agents' side of runs (PROTOCOL.md §24): each run's toolbox with its own `delegate`, and a sub-agent's end. */
  subagents: SubagentHost;
}

/** What runs need of the sub-agents' owner (`core/subagents/`). */
export interface SubagentHost {
  /** How deep sub-agents may nest (`hello.limits.maxSubagentDepth`, PROTOCOL.md §24.1): for every way one opens. */
  readonly maxDepth: number;
  /** The tools `run`'s agent gets: the server's, and a `delegate` bound to the run. */
  toolboxFor(run: AgentRun): AgentToolbox;
  /** A sub-agent's run ended by itself (`failure` when it threw): its status, and the outcome its parent awaits. */
  scopeEnded(run: AgentRun, failure: { error: unknown } | undefined): void;
  /** The session's own run ended (`interrupted`: cut off from outside): sub-agents its agent left running stop with it. */
  turnEnded(session: LiveSession, interrupted: boolean): void;
}

/** A run of a sub-agent: its scope, the task it was delegated, and the run it belongs to, whose abort ends it too. */
export interface ScopedRunInit {
  scope: string;
  task: string;
  parentSignal: AbortSignal;
}

function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 0 ? message : 'The agent failed without saying why.';
}

/**
 * One run of an agent on a session: from the head of its chain to a final answer. The run is
 * the session's `run` until it ends or is aborted; only then may it emit (see `RunSink`).
 */
export class AgentRun implements SessionRun, RunScope {
  readonly session: LiveSession;
  readonly tokenDelayMs: number;
  readonly backlog: Backlog | undefined;
  readonly sink: RunSink;
  /** The sub-agent's scope this run writes in; `undefined` for the session's own chain. */
  readonly scope: string | undefined;
  readonly #task: string;
  readonly #controller = new AbortController();
  readonly #agent: Agent;
  readonly #deps: RunDeps;
  #settled: Promise<void> = Promise.resolve();
  /** Set once the agent returned: the step its end closes is no boundary to steer at (the turn's end handles the messages). */
  #ending = false;

  private constructor(session: LiveSession, agent: Agent, deps: RunDeps, scoped: ScopedRunInit | undefined) {
    this.session = session;
    this.#agent = agent;
    this.#deps = deps;
    this.scope = scoped?.scope;
    this.#task = scoped?.task ?? session.state.session.task;
    if (scoped !== undefined) linkAbort(scoped.parentSignal, this);
    this.tokenDelayMs = session.options.tokenDelayMs ?? deps.defaultTokenDelayMs;
    this.backlog = deps.backlog;
    this.sink = new RunSink(this);
  }

  /**
   * Make a new run the session's run and launch the agent on a later tick, so the caller's
   * answer (`session.created`, `correction.accepted`) and subscriptions come first.
   */
  static start(session: LiveSession, agent: Agent, deps: RunDeps, scoped?: ScopedRunInit): AgentRun {
    const run = new AgentRun(session, agent, deps, scoped);
    session.claimRun(run);
    // A chain whose head is a question without its answer is asked, not run (PROTOCOL.md §25.1): a corrected ask_user call is asked again.
    const question = unansweredQuestion(session, run.scope);
    if (question !== undefined) run.waitForInput(question);
    else run.#judgeUndecidedHead();
    run.#settled = new Promise<void>((resolve) => {
      setImmediate(() => {
        if (!run.live) {
          resolve();
          return;
        }
        run.#launch().then(resolve, resolve);
      });
    });
    return run;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get live(): boolean {
    return !this.#controller.signal.aborted && this.session.runs.of(this.scope) === this;
  }

  /** The agent this run drives. */
  get agentName(): string {
    return this.#agent.name;
  }

  get settled(): Promise<void> {
    return this.#settled;
  }

  newId(): string {
    return this.#deps.newId();
  }

  get maxSubagentDepth(): number {
    return this.#deps.subagents.maxDepth;
  }

  /** A head call nobody decided is judged before the agent runs on from it (see `undecidedCall`). */
  #judgeUndecidedHead(): void {
    const call = undecidedCall(this.session, this.scope);
    if (call === undefined) return;
    const verdict = this.policyVerdictOn(call, new Date().toISOString());
    if (verdict.decision === 'deny') this.refuseByRule(call, verdict);
    else if (verdict.decision === 'ask') this.waitForApproval(call);
  }

  policyVerdictOn(step: Step, at: string): JudgedCall {
    return judgeCall(this.session, step, this.#deps.tools, at);
  }

  waitForApproval(step: Step): void {
    this.#deps.awaitApproval(this, step);
  }

  refuseByRule(step: Step, verdict: JudgedCall): void {
    this.#deps.refuseByRule(this, step, verdict);
  }

  waitForInput(step: Step): void {
    this.#deps.awaitInput(this, step);
  }

  atStepBoundary(): void {
    // Messages go on the session's own chain: a sub-agent's steps are no boundary for them.
    if (this.scope === undefined && this.live && !this.#ending) this.#deps.atStepBoundary(this);
  }

  recordUsage(report: ModelCallReport): void {
    this.#deps.recordUsage(this, report);
  }

  breakpointOn(step: Step): BreakpointMatch | undefined {
    return breakpointOn(this.session, step);
  }

  stopAtBreakpoint(step: Step, match: BreakpointMatch): void {
    this.#deps.stopAtBreakpoint(this, step, match);
  }

  /** Abort the agent and its tools; the session no longer counts this run as its own. */
  abort(why: string): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(abortError(why));
    this.session.releaseRun(this);
  }

  async #launch(): Promise<void> {
    const { session } = this;
    let failure: { error: unknown } | undefined;
    // The turn's span (a no-op with tracing off): the agent's model and tool calls are its children.
    const turn = this.#deps.traceTurn(session, this.#agent.name);
    try {
      const tools = this.#deps.subagents.toolboxFor(this);
      // Lessons are the session's: a sub-agent's run works on its delegated task alone.
      if (this.scope === undefined) await writeLessonsStep(this, this.#agent, tools, this.#deps.lessons);
      const chain = session.chainCopy(this.scope);
      const lessons = this.scope === undefined && this.#agent.lessons !== undefined ? guidanceOf(chain) : undefined;
      await turn.within(() =>
        this.#agent.run({
          sessionId: session.id,
          task: this.#task,
          chain,
          options: { ...session.options },
          ...(lessons === undefined ? {} : { lessons }),
          tools,
          sink: this.sink,
          signal: this.signal,
        }),
      );
    } catch (error) {
      failure = { error };
    }
    turn.end(failure, this.signal);
    // An aborted or superseded run ends silently: the session has moved on without it.
    if (!this.live) return;
    this.#ending = true;
    this.sink.closeOpenStep();
    // The step it closes may stop the run there (a breakpoint, or a call that waits): that is the status then.
    if (!this.live) return;
    session.releaseRun(this);
    if (this.scope !== undefined) {
      this.#deps.subagents.scopeEnded(this, failure);
      return;
    }
    const interrupted = failure !== undefined && isRunInterrupted(failure.error);
    this.#deps.subagents.turnEnded(session, interrupted);
    // Cut off from outside (a remote worker went away): resumable, not a failure of the agent.
    if (failure !== undefined && isRunInterrupted(failure.error)) {
      session.setStatus('interrupted', { detail: failure.error.detail });
      return;
    }
    // Messages queued for the next turn start it in place of the final status.
    if (this.#deps.continueAfterTurn(this)) return;
    if (failure === undefined) session.setStatus('completed');
    else session.setStatus('failed', { error: errorMessage(failure.error) });
  }
}

/** A sub-agent's run ends with the run it belongs to (a correction, a cancel, a shutdown of its parent). */
function linkAbort(parent: AbortSignal, run: AgentRun): void {
  if (parent.aborted) {
    run.abort('its parent run stopped');
    return;
  }
  const onAbort = (): void => run.abort('its parent run stopped');
  parent.addEventListener('abort', onAbort, { once: true });
  run.signal.addEventListener('abort', () => parent.removeEventListener('abort', onAbort), { once: true });
}
