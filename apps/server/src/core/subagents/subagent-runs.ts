import { DELEGATE_TOOL, type DelegateInput, type SessionEvent, type SubagentInfo, type SubagentStatus } from '@interthought/protocol';
import { isRunInterrupted, type Agent, type AgentRegistry, type AgentToolbox, type ToolCallContext } from '@interthought/agent';
import type { LiveSession, SessionRun } from '../sessions/live-session.js';
import type { ToolCatalog } from '../ports/tool-catalog.js';
import type { ReplyTo } from '../fanout/peer.js';
import type { AgentRun, ScopedRunInit, SubagentHost } from '../run/agent-run.js';
import { ToolError } from '../../tools/tool.js';
import { waitingDetail } from '../commands/pending-wait.js';
import { boundDelegate, runToolbox } from './delegate-tool.js';
import { SubagentOutcomes, isFinished, storedOutcome, type SubagentOutcome } from './subagent-outcomes.js';

export interface SubagentRunsDeps {
  agents: AgentRegistry;
  /** The server's tools, `delegate` among them. */
  tools: ToolCatalog;
  /** How deep sub-agents may nest (`hello.limits.maxSubagentDepth`). */
  maxDepth: number;
  /** Start a run of a sub-agent's agent in its scope. */
  startScoped(session: LiveSession, agent: Agent, scoped: ScopedRunInit): AgentRun;
  /** Start a run of the session's own agent from its chain (when it has none). */
  startRoot(session: LiveSession): void;
}

/** Whether the scope's delegate call is still valid (a correction did not invalidate it). */
export function isValidScope(session: LiveSession, scope: string): boolean {
  const call = session.state.steps.get(scope);
  return call !== undefined && call.status !== 'invalidated';
}

/** The sub-agents of the session whose delegate call is still valid, in the order they started. */
export function validSubagents(session: LiveSession): SubagentInfo[] {
  return [...session.state.subagents.values()].filter((info) => isValidScope(session, info.scope));
}

/** Whether the chain of `scope` ends with a delegate call: its run waits for its batch (and writes nothing meanwhile). */
export function awaitsBatch(session: LiveSession, scope: string | undefined): boolean {
  const head = session.head(scope);
  return head !== undefined && head.kind === 'tool_call' && head.tool === DELEGATE_TOOL && head.status !== 'streaming';
}

/**
 * The sub-agents of every session this process runs (PROTOCOL.md §24): each run's `delegate`,
 * starting, resuming and finishing scoped runs, and the outcomes parents wait for. The commands
 * (corrections, decisions, cancels, lifecycle) reach scoped runs through it.
 */
export class SubagentRuns implements SubagentHost {
  readonly #deps: SubagentRunsDeps;
  readonly #outcomes = new SubagentOutcomes();

  constructor(deps: SubagentRunsDeps) {
    this.#deps = deps;
  }

  get maxDepth(): number {
    return this.#deps.maxDepth;
  }

  toolboxFor(run: AgentRun): AgentToolbox {
    const agent = this.#deps.agents.get(run.agentName);
    const offered = (agent?.subagents?.length ?? 0) > 0;
    const delegate = boundDelegate((input, signal, call) => this.#delegate(run, input, signal, call));
    return runToolbox(this.#deps.tools, delegate, offered);
  }

  scopeEnded(run: AgentRun, failure: { error: unknown } | undefined): void {
    const { session } = run;
    const scope = run.scope!;
    // Cut off from outside (a remote worker went away): the whole session is resumable, as a root run's would be.
    if (failure !== undefined && isRunInterrupted(failure.error)) {
      this.interrupt(session, failure.error.detail);
      return;
    }
    if (failure === undefined) this.#finish(session, scope, 'completed');
    else this.#finish(session, scope, 'failed', errorMessage(failure.error));
  }

  turnEnded(session: LiveSession, interrupted: boolean): void {
    if (!validSubagents(session).some((info) => info.status === 'running' || info.status === 'waiting')) return;
    session.abortRuns('the turn of the session\'s agent ended');
    if (interrupted) this.markInterrupted(session);
    else this.endAll(session, 'cancelled');
  }

  /**
   * Make sure `scope` gets run: when its parent's run is there (waiting for its batch), the scope's
   * sub-agent runs again now; otherwise its parent is driven, whose delegate calls then resume it
   * (or give the stored outcomes of finished ones). `undefined` drives the session's own run.
   */
  drive(session: LiveSession, scope: string | undefined): void {
    if (scope === undefined) {
      if (session.run === undefined) this.#deps.startRoot(session);
      return;
    }
    const info = session.state.subagents.get(scope);
    if (info === undefined) return;
    const parentRun = session.runs.of(info.parentScope);
    if (parentRun !== undefined && parentRun.live) {
      this.#startScopeRun(session, info, parentRun);
      return;
    }
    this.drive(session, info.parentScope);
  }

  /** A scoped tool call waits for the user (its approval, or its question's answer): only its sub-agent stops; the session waits once nothing of it works (§24.5). */
  awaitApproval(session: LiveSession, scope: string): void {
    this.#setStatus(session, scope, 'waiting');
    this.noteQuiet(session);
  }

  /** Nothing of the session works any more and a sub-agent waits for a decision or an answer: the session is `waiting` (§24.5). */
  noteQuiet(session: LiveSession): void {
    if (session.status !== 'running') return;
    const waiting = validSubagents(session).filter((info) => info.status === 'waiting');
    if (waiting.length === 0) return;
    if (session.runs.all().some((run) => run.live && !awaitsBatch(session, run.scope))) return;
    session.setStatus('waiting', { detail: waitingDetail(session.head(waiting[0]!.scope)) });
  }

  /** The sub-agent runs again (a correction or a decision in it): `running`, unless it is. */
  reopen(session: LiveSession, scope: string): void {
    if (session.state.subagents.get(scope)?.status !== 'running') this.#setStatus(session, scope, 'running');
  }

  /** A sub-agent a breakpoint stopped at its final answer ends as its run would have (PROTOCOL.md §25.5). */
  finishAnswered(session: LiveSession, scope: string): void {
    this.#finish(session, scope, 'completed');
  }

  /**
   * Stop one sub-agent for good (`subagent.cancel`, §24.6): its run and its own sub-agents' stop,
   * its streaming step keeps what it has, it is `cancelled` (the requester's copy answers), and
   * the parent waiting for it gets that outcome.
   */
  cancel(session: LiveSession, scope: string, reply?: ReplyTo): void {
    const nested = this.#nestedLive(session, scope);
    session.runs.of(scope)?.abort('the sub-agent was cancelled');
    for (const inner of nested) {
      session.runs.of(inner)?.abort('the sub-agent was cancelled');
      session.finishDanglingHead(inner);
      this.#setStatus(session, inner, 'cancelled');
    }
    session.finishDanglingHead(scope);
    this.#finish(session, scope, 'cancelled', undefined, reply);
  }

  /** The session stops for good (a cancel, a spent budget): its running and waiting sub-agents end with it. */
  endAll(session: LiveSession, status: 'cancelled' | 'failed', error?: string): void {
    for (const info of validSubagents(session)) {
      if (info.status === 'running' || info.status === 'waiting' || info.status === 'interrupted') this.#setStatus(session, info.scope, status, error);
    }
  }

  /** Every run of the session stops without finishing (its worker went away, it stayed paused too long): `interrupted`, resumable. */
  interrupt(session: LiveSession, detail?: string): void {
    session.abortRuns('the session was interrupted');
    this.markInterrupted(session);
    session.setStatus('interrupted', detail === undefined ? {} : { detail });
  }

  /** The sub-agents of an interrupted session that read `running` had their run stop with it (§24.7). */
  markInterrupted(session: LiveSession): void {
    for (const info of validSubagents(session)) if (info.status === 'running') this.#setStatus(session, info.scope, 'interrupted');
  }

  async #delegate(run: AgentRun, input: DelegateInput, signal: AbortSignal, call: ToolCallContext): Promise<SubagentOutcome> {
    const { session } = run;
    if (!run.live) throw run.signal.aborted ? run.signal.reason : new Error('This run is over: its session has moved on.');
    const step = session.state.steps.get(call.stepId);
    const onChain = session.chainOf(run.scope).includes(call.stepId);
    if (step === undefined || step.kind !== 'tool_call' || step.tool !== DELEGATE_TOOL || step.status === 'streaming' || !onChain) {
      throw new ToolError(`Step ${call.stepId} is not a completed ${DELEGATE_TOOL} call of this run's chain, so it starts no sub-agent.`);
    }
    const scope = step.stepId;
    const known = session.state.subagents.get(scope);
    // Finished and still valid: its outcome at once, and its agent is not called again.
    if (known !== undefined && isFinished(known.status)) return storedOutcome(session.state, { ...known, status: known.status });
    const info = known ?? this.#open(run, scope, input);
    const outcome = this.#outcomes.wait(session, scope, signal);
    // One waiting for a decision runs again once decided; one that runs already is waited for.
    const scopeRun = session.runs.of(scope);
    if (info.status !== 'waiting' && (scopeRun === undefined || !scopeRun.live)) this.#startScopeRun(session, info, run);
    return outcome;
  }

  /** `subagent.started` for a new scope, after the checks of §24.1 (depth, which agent): a `ToolError` says why not. */
  #open(run: AgentRun, scope: string, input: DelegateInput): SubagentInfo {
    const { session } = run;
    const parent = run.scope === undefined ? undefined : session.state.subagents.get(run.scope);
    const depth = (parent?.depth ?? 0) + 1;
    const refuse = (error: string): never => {
      throw new ToolError(error, { output: { subagent: scope, status: 'failed', error } });
    };
    if (depth > this.#deps.maxDepth) {
      refuse(`Sub-agents nest at most ${this.#deps.maxDepth} deep on this server, and this one would be at depth ${depth}: it was not started. Work on this part yourself.`);
    }
    const own = this.#deps.agents.get(run.agentName);
    const offered = [run.agentName, ...(own?.subagents ?? [])];
    const agentName = input.agent ?? run.agentName;
    if (!offered.includes(agentName)) {
      refuse(`"${agentName}" is not a sub-agent ${run.agentName} offers; it may delegate to: ${offered.join(', ')}.`);
    }
    const agent = this.#deps.agents.get(agentName);
    if (agent === undefined) refuse(`No agent "${agentName}" is registered on this server, so no sub-agent was started.`);
    const availability = agent!.availability();
    if (!availability.available) refuse(`Agent "${agentName}" is unavailable: ${availability.reason}`);
    const event: SessionEvent = {
      type: 'subagent.started',
      ...session.nextBase(),
      scope,
      depth,
      name: input.name ?? agentName,
      agent: agentName,
      task: input.task,
    };
    if (run.scope !== undefined) event.parentScope = run.scope;
    session.append(event);
    return session.state.subagents.get(scope)!;
  }

  /** Run the sub-agent of `info` from its scope's chain, as part of `parentRun` (whose abort ends it). */
  #startScopeRun(session: LiveSession, info: SubagentInfo, parentRun: SessionRun): void {
    const agent = this.#deps.agents.get(info.agent);
    const availability = agent?.availability();
    if (agent === undefined || availability?.available !== true) {
      const why = agent === undefined ? `no agent "${info.agent}" is registered any more` : `agent "${info.agent}" is unavailable: ${availability?.available === false ? availability.reason : ''}`;
      this.#finish(session, info.scope, 'failed', `The sub-agent could not run: ${why}.`);
      return;
    }
    session.runs.of(info.scope)?.abort('the sub-agent runs again');
    session.finishDanglingHead(info.scope);
    this.reopen(session, info.scope);
    this.#deps.startScoped(session, agent, { scope: info.scope, task: info.task, parentSignal: parentRun.signal });
  }

  /** The sub-agent ended: its status (before its delegate call's observation), then the outcome to whoever waits for it. */
  #finish(session: LiveSession, scope: string, status: 'completed' | 'failed' | 'cancelled', error?: string, reply?: ReplyTo): void {
    this.#setStatus(session, scope, status, error, reply);
    const info = session.state.subagents.get(scope)!;
    this.#outcomes.settle(session, scope, storedOutcome(session.state, { ...info, status }));
    this.noteQuiet(session);
  }

  #setStatus(session: LiveSession, scope: string, status: SubagentStatus, error?: string, reply?: ReplyTo): void {
    const event: SessionEvent = { type: 'subagent.status', ...session.nextBase(), scope, status };
    if (error !== undefined) event.error = error;
    session.append(event, reply);
  }

  /** The scopes below `scope` (on its chain, and theirs) that run or wait. */
  #nestedLive(session: LiveSession, scope: string): string[] {
    const found: string[] = [];
    const visit = (parent: string): void => {
      for (const info of session.state.subagents.values()) {
        if (info.parentScope !== parent || !session.chainOf(parent).includes(info.scope)) continue;
        if (info.status === 'running' || info.status === 'waiting') found.push(info.scope);
        visit(info.scope);
      }
    };
    visit(scope);
    return found;
  }
}

function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 0 ? message : 'The sub-agent failed without saying why.';
}
