import { isLive } from '@interthought/protocol';
import type { Agent, AgentRegistry, ModelCallReport } from '@interthought/agent';
import type { Step } from '@interthought/protocol';
import { appendApprovalRequest, appendApprovalRequested, appendRefusalObservation } from '../commands/approvals.js';
import { appendInputRequested, appendQuestionRequest } from '../commands/questions.js';
import { ruleRefusal, type JudgedCall } from '../commands/standing-decisions.js';
import type { SubagentRuns } from '../subagents/subagent-runs.js';
import { applyQueuedMessages, atStepBoundary } from '../commands/conversation.js';
import { budgetReached, budgetStopMessage, type BudgetUse } from '../commands/token-budget.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { AgentRun, RunDeps } from './agent-run.js';
import type { PriceTable } from './model-prices.js';
import type { SessionTimers } from './session-timers.js';
import { appendUsage, type UsageTotals } from './usage-ledger.js';

export interface TurnHooksContext {
  agents: AgentRegistry;
  timers: SessionTimers;
  /** What every model call run here used (metrics). */
  usage: UsageTotals;
  prices?: PriceTable;
  maxTokensPerSession?: number;
  subagents: SubagentRuns;
  stopRun(session: LiveSession, why: string): void;
  /** Start a new run of `agent` on the session, which replaces the current one. */
  runAgain(session: LiveSession, agent: Agent): void;
  newId(): string;
}

/** What the engine does when a run reaches a step boundary, waits for approval, spends tokens or ends its turn. */
export function turnHooks(context: TurnHooksContext): Pick<RunDeps, 'awaitApproval' | 'awaitInput' | 'refuseByRule' | 'atStepBoundary' | 'continueAfterTurn' | 'recordUsage'> {
  const { agents, timers } = context;

  /** Stop the session's run for good and fail it with `failure: "budget"`; messages still waiting go on the chain, as on a cancel. */
  const stopForBudget = (session: LiveSession, use: BudgetUse): void => {
    context.stopRun(session, 'the token budget is spent');
    const error = budgetStopMessage(use);
    context.subagents.endAll(session, 'failed', error);
    session.setStatus('failed', { error, failure: 'budget' });
    if (session.state.queued.length > 0) {
      session.finishDanglingHead();
      applyQueuedMessages(session);
    }
  };

  return {
    /** A step of the run ended: steering messages go on the chain now, and a new run takes them into account. */
    atStepBoundary(run: AgentRun): void {
      const { session } = run;
      if (!session.state.queued.some((message) => message.mode === 'steer') || !atStepBoundary(session)) return;
      const agent = agents.get(session.state.session.agent);
      if (agent === undefined) return;
      run.abort('the user sent a message');
      applyQueuedMessages(session, 'steer');
      context.runAgain(session, agent);
    },
    /** The agent's turn ended: messages queued meanwhile go on the chain and start the next turn. */
    continueAfterTurn(run: AgentRun): boolean {
      const { session } = run;
      if (session.state.queued.length === 0) return false;
      const agent = agents.get(session.state.session.agent);
      if (agent === undefined || !agent.availability().available) return false;
      session.finishDanglingHead();
      applyQueuedMessages(session);
      context.runAgain(session, agent);
      return true;
    },
    /** A run completed a tool call the policy makes wait: the run ends before the tool can run, and the session waits. */
    awaitApproval(run: AgentRun, call: Step): void {
      const { session } = run;
      run.abort('the tool call waits for approval');
      // Inside a sub-agent only that sub-agent stops; the session waits once nothing of it works (PROTOCOL.md §24.5).
      if (run.scope !== undefined) {
        appendApprovalRequested(session, call);
        context.subagents.awaitApproval(session, run.scope);
        timers.armDeadlineOf(session.state, session.options);
        return;
      }
      timers.disarmPaused(session);
      appendApprovalRequest(session, call);
      timers.armDeadlineOf(session.state, session.options);
    },
    /** A run completed an `ask_user` call (or starts on one not answered): the run ends, and its scope waits for the answer (PROTOCOL.md §25.1). */
    awaitInput(run: AgentRun, call: Step): void {
      const { session } = run;
      run.abort('the agent asks the user');
      // Inside a sub-agent only that sub-agent waits, as for an approval (§24.5); its siblings may run on.
      // The call's own scope: a sub-agent its parent's agent runs itself (an AG-UI agent's) writes through the parent's run.
      if (call.scope !== undefined) {
        appendInputRequested(session, call);
        context.subagents.awaitApproval(session, call.scope);
        timers.armDeadlineOf(session.state, session.options);
        return;
      }
      timers.disarmPaused(session);
      appendQuestionRequest(session, call);
      timers.armDeadlineOf(session.state, session.options);
    },
    /**
     * A rule denied a completed call of `run` (PROTOCOL.md §25.4), in the turn of its step.completed:
     * the run ends before the tool can run, the refusal's observation follows, and a new run of the
     * same chain (the session's, or the sub-agent's) goes on after it, as after a rejection (§19.3).
     */
    refuseByRule(run: AgentRun, call: Step, verdict: JudgedCall): void {
      const { session } = run;
      run.abort('a rule of the session refused the tool call');
      appendRefusalObservation(session, call, ruleRefusal(session.options.approve, call, verdict), context.newId());
      context.subagents.drive(session, run.scope);
    },
    /** A model call of `run` used tokens: recorded, and the session stopped when they reach its budget (PROTOCOL.md §22.3 "Budgets"). */
    recordUsage(run: AgentRun, report: ModelCallReport): void {
      const { session } = run;
      context.usage.add(appendUsage(session, report, context.prices));
      const use = budgetReached(session.state, session.options, context.maxTokensPerSession);
      if (use !== undefined && isLive(session.status)) stopForBudget(session, use);
    },
  };
}
