import type { Agent } from '@interthought/agent';
import type { SessionOptions, SessionState } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { ForkInput } from '../session-service.js';
import { forkCopy, type ForkCopy } from '../subagents/scope-copies.js';
import { SessionError } from '../session-error.js';
import { appendApprovalRequest, appendRefusalObservation } from './approvals.js';
import { agentAndOptions } from './session-setup.js';
import { pathTo } from './conversation.js';
import { judgeCall, ruleRefusal } from './standing-decisions.js';

/*
 * Replay from a step on another agent or model (PROTOCOL.md §26.5): what a `session.fork` with
 * `agent`, `options` or `run` records, which path it copies, and how its run starts.
 */

/** The agent and options a fork records; `agent` is set when they were checked (a replay, or fields that replace the source's). */
export interface ForkSetup {
  agentName: string;
  agent?: Agent;
  options: SessionOptions;
  model?: string;
}

/**
 * The source's agent and options, or those the request names, checked exactly as `session.create`
 * checks them. The request's options replace the source's field by field: a client that only knows
 * the model it wants keeps the source's policy, breakpoints and budget. Another agent keeps the
 * source's options but not its model, which it may not offer: unless one is named, its own default.
 */
export function forkSetup(engine: SessionEngine, source: { state: SessionState; options: SessionOptions }, input: ForkInput): ForkSetup {
  const { agent: sourceAgent, model: sourceModel } = source.state.session;
  if (input.agent === undefined && input.options === undefined && input.run !== true) {
    return { agentName: sourceAgent, options: { ...source.options }, ...(sourceModel === undefined ? {} : { model: sourceModel }) };
  }
  const agentName = input.agent ?? sourceAgent;
  const { model: _sourceModel, ...withoutModel } = source.options;
  const raw = { ...(agentName === sourceAgent ? source.options : withoutModel), ...input.options };
  const checked = agentAndOptions(engine, agentName, raw);
  return { agentName, agent: checked.agent, options: checked.options, ...(checked.model === undefined ? {} : { model: checked.model }) };
}

/** What a replay copies: the path to the named step, or for a final answer the path before it. */
export interface ReplayPlan {
  /** The source step the copied path ends at (absent when nothing is copied). */
  copiedTo?: string;
  copy(newId: () => string): ForkCopy;
}

/**
 * A replay from a `final_answer` asks the new agent for its own answer: the answer is what is
 * compared, so the copied path stops before it (an answer at the head of a chain stands, §7.5).
 * A step of a sub-agent's scope is refused: its fork is `interrupted`, and `session.resume` runs it.
 */
export function replayPlan(state: SessionState, stepId: string): ReplayPlan {
  const sessionId = state.session.sessionId;
  const named = pathTo(state, sessionId, stepId).at(-1)!;
  if (named.scope !== undefined) {
    throw new SessionError('INVALID_STATE', `Step ${stepId} is a sub-agent's step: a replay starts from a step of the session's own chain. Fork without "run", then resume the fork.`);
  }
  if (named.kind !== 'final_answer') return { copiedTo: stepId, copy: (newId) => forkCopy(state, stepId, newId) };
  const before = named.parentId;
  if (before === null) return { copy: () => ({ events: [], status: 'idle' }) };
  return { copiedTo: before, copy: (newId) => forkCopy(state, before, newId) };
}

/**
 * Start the replay's run, in the turn that created the fork. A head tool call that has not run is
 * judged by the fork's own policy first, as if the agent had just made it: an approval copied from
 * the source lets it run, a refusal copied stands, otherwise `ask` waits for the user and `deny`
 * refuses it. Then the agent continues the chain (§7.5): a tool call is run, a message answered.
 */
export function startReplay(engine: SessionEngine, fork: LiveSession, agent: Agent): void {
  const head = fork.head();
  if (head?.kind === 'tool_call') {
    const decided = head.approval?.state;
    if (decided === 'rejected') {
      appendRefusalObservation(fork, head, { by: head.approval?.by ?? 'unknown', ...(head.approval?.reason === undefined ? {} : { reason: head.approval.reason }) }, engine.newId());
    } else if (decided !== 'approved' && decided !== 'edited') {
      const verdict = judgeCall(fork, head, engine.tools, fork.nextBase().at);
      if (verdict.decision === 'ask') {
        appendApprovalRequest(fork, head);
        engine.timers.armDeadlineOf(fork.state, fork.options);
        return;
      }
      if (verdict.decision === 'deny') appendRefusalObservation(fork, head, ruleRefusal(fork.options.approve, head, verdict), engine.newId());
    }
  }
  engine.startRun(fork, agent);
}
