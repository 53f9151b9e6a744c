import { ASK_USER_TOOL, type AskUserInput } from '@interthought/protocol';
import type { Agent, AgentRunContext } from '@interthought/agent';
import { observeTool } from '../tool-steps.js';
import { readChain, type ChainState } from './chain-state.js';
import { continueDelegation } from './delegation-run.js';
import { readDelegation, rewrittenSplitTask } from './delegation-state.js';
import { emit } from './emit.js';
import { say } from './language.js';
import { announceCall, keptPlanRemark, refusedCallAnswer, toolFailureAnswer, unreadableObservationAnswer } from './narration.js';
import type { AskPlan, Outcome, PlannedCall, SolvePlan } from './plan.js';
import { arithmeticAnswer } from './recognize-arithmetic.js';

/** A step kind the state machine does not handle is a compile error here. */
function unreachable(kind: never): never {
  throw new Error(`The demo agent cannot continue after a step of kind ${String(kind)}.`);
}

function nextCall(state: ChainState): PlannedCall | undefined {
  if (state.plan.kind !== 'solve' || state.failure) return undefined;
  return state.plan.steps[state.nextStep]?.call(state.lastValue, state.values);
}

/** The action before a tool call: why (first call only), what, and what comes after. */
function actionText(state: ChainState, plan: SolvePlan, call: PlannedCall): string {
  const remark = state.remark === 'thought' || state.remark === 'action' ? keptPlanRemark(state.lang, state.remark) : '';
  if (state.nextStep > 0) return remark + announceCall(state.lang, call, true);
  const previews = plan.steps.slice(1).map((step) => step.preview ?? '').filter(Boolean);
  return [remark + plan.approach, announceCall(state.lang, call), ...previews].filter(Boolean).join(state.lang === 'zh' ? '' : ' ');
}

function finalAnswer(state: ChainState): string {
  const { plan, lang } = state;
  if (state.failure?.kind === 'tool') return toolFailureAnswer(lang, state.failure.tool, state.failure.error);
  if (state.failure?.kind === 'unreadable') return unreadableObservationAnswer(lang, state.failure.text);
  if (state.failure?.kind === 'refused') {
    const { tool, timedOut, reason } = state.failure;
    const soFar = state.lastValue?.value ?? state.lastValue?.date;
    return refusedCallAnswer(lang, tool, { timedOut, ...(reason === undefined ? {} : { reason }) }, soFar === undefined ? undefined : String(soFar));
  }
  const outcome: Outcome = {
    ...state.lastValue,
    ...(state.lastCall ? { call: state.lastCall } : {}),
    fromTool: state.fromTool,
    asPlanned: state.asPlanned,
    values: state.values,
  };
  if (plan.kind === 'reply') return plan.answer;
  // Only reached when a question could not be asked: say so rather than answer it.
  if (plan.kind === 'ask') return say(lang, `I needed to ask you first: ${plan.question}`, `我需要先问你：${plan.question}`);
  if (plan.kind === 'advice') {
    return state.lastValue ? arithmeticAnswer(lang, outcome) : plan.answer(state.actionText ?? plan.action);
  }
  if (!state.lastValue) return say(lang, 'No tool has produced a result yet, so I have no answer.', '还没有工具给出结果，所以我没有答案。');
  return plan.answer(outcome);
}

/** Run the tool call at the head of the chain and fold its result into the state. */
async function observe(context: AgentRunContext, state: ChainState): Promise<void> {
  const pending = state.pending;
  state.pending = undefined;
  const stepIndex = state.nextStep;
  state.nextStep += 1;
  if (!pending || pending.error !== undefined || pending.input === undefined) {
    const error = pending?.error ?? say(state.lang, 'There is no tool call to run.', '没有可运行的工具调用。');
    const tool = pending?.tool ?? 'calculator';
    await emit(context, 'observation', `Error: ${error}`, { tool, result: { error } });
    state.failure = { kind: 'tool', tool, error };
    return;
  }
  const outcome = await observeTool(context, pending.tool, pending.input);
  if (pending.call) state.lastCall = pending.call;
  if (!outcome.ok) {
    state.failure = { kind: 'tool', tool: pending.tool, error: outcome.error };
    return;
  }
  const output = outcome.result.output as { value?: unknown; unit?: unknown; date?: unknown; weekday?: unknown } | undefined;
  state.lastValue = {
    ...(typeof output?.value === 'number' ? { value: output.value } : {}),
    ...(typeof output?.unit === 'string' ? { unit: output.unit } : {}),
    ...(typeof output?.date === 'string' ? { date: output.date } : {}),
    ...(typeof output?.weekday === 'string' ? { weekday: output.weekday } : {}),
  };
  state.values[stepIndex] = state.lastValue;
  state.fromTool = true;
}

/**
 * Ask the user (PROTOCOL.md §25.1): a `tool_call` of `ask_user`, ended. The server stops the run
 * there and waits; the agent's next run gets the chain with the answer's observation at its head.
 */
async function ask(context: AgentRunContext, plan: AskPlan): Promise<void> {
  const input: AskUserInput = { question: plan.question, ...(plan.choices ? { choices: plan.choices } : {}) };
  await emit(context, 'tool_call', JSON.stringify(input), { tool: ASK_USER_TOOL });
}

/**
 * Continue the chain from its last step to a final answer. A small state machine over the last
 * step's kind: thought → action → tool_call → observation → (action → tool_call → observation)* → final_answer.
 * A plan that asks the user goes thought → tool_call of ask_user, and the run ends there; the
 * answer's observation starts the plan it settles: thought → action → … (PROTOCOL.md §25.6).
 */
async function continueChain(context: AgentRunContext, state: ChainState): Promise<void> {
  let last = state.last;
  for (;;) {
    const { plan } = state;
    switch (last) {
      case 'none':
      case 'user_message':
      case 'answer':
        // A message starts a new turn, and an answer to the agent's question settles one: its plan (set by readChain) begins with what the agent made of it.
        await emit(context, 'thought', plan.thought);
        last = 'thought';
        break;
      case 'thought':
      case 'observation': {
        if (plan.kind === 'ask' && last === 'thought') {
          await ask(context, plan);
          return;
        }
        const call = nextCall(state);
        if (plan.kind === 'advice' && last === 'thought') {
          state.actionText = plan.action;
          await emit(context, 'action', plan.action);
        } else if (plan.kind === 'solve' && call) {
          await emit(context, 'action', actionText(state, plan, call));
        } else {
          await emit(context, 'final_answer', finalAnswer(state));
          return;
        }
        state.remark = undefined;
        last = 'action';
        break;
      }
      case 'action': {
        const call = nextCall(state);
        if (!call) {
          await emit(context, 'final_answer', finalAnswer(state));
          return;
        }
        state.pending = { tool: call.tool, call, input: call.input };
        await emit(context, 'tool_call', JSON.stringify(call.input), { tool: call.tool });
        last = 'tool_call';
        break;
      }
      case 'tool_call':
        // The chain ends in the agent's question: the server asks it and starts the agent again with the answer.
        if (state.pending?.question) return;
        await observe(context, state);
        last = 'observation';
        break;
      case 'final_answer':
        // The answer on the chain stands (the agent's own, or the user's correction of it).
        return;
      default:
        return unreachable(last);
    }
  }
}

/**
 * The offline demo agent: no model, no network. It reads the task (English or Chinese), plans
 * tool calls with a rule-based problem analyser, and continues any chain, corrected or not,
 * from its last step. A user message on the chain starts a new turn: a follow-up on its answer
 * or steering of the run (recognize-follow-up.ts). A task of independent questions is split
 * into parts, each answered by a sub-agent of its own in one parallel batch (delegation-run.ts).
 */
export function createDemoAgent(): Agent {
  return {
    name: 'demo',
    description:
      'Offline demo agent (English / 中文): solves arithmetic, percentages, word problems and unit conversions step by step with real tools, hands each part of a multi-part task to a sub-agent of its own, and takes follow-ups on its answers. No API key needed.',
    descriptions: {
      zh: '离线演示智能体（中文 / English）：用真实的工具一步步解算术、百分比、应用题和单位换算，把多部分的任务的每一部分交给它自己的子智能体，也接受对答案的追问。无需 API 密钥。',
    },
    availability: () => ({ available: true }),
    async run(context) {
      // A multi-part task goes to sub-agents, one per part; a sub-agent's own task is one part, so it never splits again.
      const delegation = readDelegation(context.task, context.chain, context.tools);
      if (delegation) await continueDelegation(context, delegation);
      else await continueChain(context, readChain(rewrittenSplitTask(context.task, context.chain) ?? context.task, context.chain, context.tools));
    },
  };
}
