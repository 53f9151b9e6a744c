import { ASK_USER_TOOL, POLICY_DECIDER, isRefusalResult, type AskUserInput, type Step, type StepKind } from '@interthought/protocol';
import { checkToolInput, type AgentToolbox } from '@interthought/agent';
import { askUserTool } from '../../tools/ask-user.js';
import { arithmeticAnswer, expressionPlan } from './recognize-arithmetic.js';
import { conversionAnswer, conversionPlan } from './recognize-conversion.js';
import type { Question } from './follow-up-question.js';
import { languageOf, say, type Lang } from './language.js';
import type { Plan, PlannedCall, Settled, SolvePlan, StepValue } from './plan.js';
import { planTurn } from './recognize-follow-up.js';
import { reviseFromStep } from './revision.js';
import { insteadPlan } from './refusal-instead.js';
import { planTask } from './sequential-parts.js';
import { readUserReply } from './user-reply.js';
import { findUnit } from '../../tools/units.js';

/** The tool call at the head of the chain, waiting for its observation. */
export type PendingCall = { tool: string; call?: PlannedCall; input?: unknown; error?: string; question?: AskUserInput };

/** Where the demo agent stands after reading the chain: its plan and how far it got. */
export interface ChainState {
  /** The text the current turn's plan solves: the task, or what the latest user message asks. */
  task: string;
  /** The language of the answer: the task's, then the latest user message's. */
  lang: Lang;
  plan: Plan;
  /** The plan step the next tool call is for. */
  nextStep: number;
  /**
   * The last step's kind (`none` for an empty chain): the agent continues after it. `answer`: the
   * user answered the agent's question, and the plan the answer settled begins with its thought.
   */
  last: StepKind | 'none' | 'answer';
  pending?: PendingCall;
  lastCall?: PlannedCall;
  lastValue?: StepValue;
  /** What each plan step produced so far, by step index: later steps of a multi-step plan read them. */
  values: Array<StepValue | undefined>;
  /** The last value came from a tool run (not from a number the user wrote into an observation). */
  fromTool: boolean;
  /** Every call so far ran as the plan had it and every value came from the tools. */
  asPlanned: boolean;
  /** Why the calculation cannot go on: a tool error, or an observation without a number. */
  failure?:
    | { kind: 'tool'; tool: string; error: string }
    | { kind: 'unreadable'; text: string }
    /** The user refused the call (or nobody approved it in time): it never ran. */
    | { kind: 'refused'; tool: string; timedOut: boolean; reason?: string };
  /** The action text on the chain (an advice plan's answer refers to it). */
  actionText?: string;
  /** Said at the start of the next action (a revision the agent could not use). */
  remark?: string;
  /** The conversation: what the current turn answers, and its answer once a final answer gave one. */
  question: Question;
  answer?: StepValue;
  /** The agent has taken steps since the last final answer: a user message now steers the run. */
  turnOpen: boolean;
}

const WEEKDAY = /\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b/iu;
const DEMO_TOOLS = new Set(['calculator', 'unit_converter', 'date_calculator']);

function asPlannedCall(tool: string, input: unknown): PlannedCall | undefined {
  return DEMO_TOOLS.has(tool) ? ({ tool, input } as PlannedCall) : undefined;
}

/** A plan of exactly `call`, answered by `answer`: its thought is already on the chain. */
function singleCallPlan(lang: Lang, call: PlannedCall, answer: SolvePlan['answer']): SolvePlan {
  return { kind: 'solve', lang, thought: '', approach: '', steps: [{ call: () => call }], answer };
}

/** A plan for one given call, whose answer fits that call's tool. */
function planForCall(lang: Lang, call: PlannedCall): SolvePlan {
  switch (call.tool) {
    case 'calculator':
      return expressionPlan(lang, call.input.expression);
    case 'unit_converter': {
      const from = findUnit(call.input.from);
      const to = findUnit(call.input.to);
      if (from && to) return conversionPlan(lang, call.input.value, from, to);
      return singleCallPlan(lang, call, (outcome) => conversionAnswer(lang, outcome));
    }
    case 'date_calculator':
      return singleCallPlan(lang, call, (outcome) =>
        outcome.date ? say(lang, `The date is ${outcome.date}.`, `日期是${outcome.date}。`) : arithmeticAnswer(lang, outcome),
      );
  }
}

/** The plan with the next step replaced by `call` (a plan of that call alone if the tools differ). */
function withNextCall(state: ChainState, call: PlannedCall): void {
  const { plan, nextStep } = state;
  const planned = plan.kind === 'solve' ? plan.steps[nextStep]?.call(state.lastValue, state.values) : undefined;
  if (plan.kind === 'solve' && planned?.tool === call.tool) {
    const steps = [...plan.steps];
    steps[nextStep] = { call: () => call };
    state.plan = { ...plan, steps, approach: '' };
  } else {
    state.plan = { ...planForCall(state.lang, call), approach: '' };
    state.nextStep = 0;
    state.values = [];
  }
  state.asPlanned = false;
}

function applyRevision(state: ChainState, step: Step): void {
  if (step.status !== 'corrected' || (step.kind !== 'thought' && step.kind !== 'action')) return;
  const revision = reviseFromStep(state.task, state.lang, step, state.plan);
  switch (revision.kind) {
    case 'call':
      withNextCall(state, revision.call);
      return;
    case 'plan':
      state.plan = revision.plan;
      state.nextStep = 0;
      state.values = [];
      state.asPlanned = true;
      return;
    case 'keep':
      state.remark = step.kind;
      return;
  }
}

/** The number (and date) an observation reports: the tool's structured result, or what its text says. */
export function readObservation(step: Step): { value: StepValue } | { error: string } | { unreadable: string } {
  const reading = readObservationOnly(step);
  // An observation rewritten without a number may carry it in the note ("the tool returned 90").
  const note = step.correction?.note;
  if ('unreadable' in reading && note) {
    const fromNote = readObservationOnly({ ...step, content: note });
    if ('value' in fromNote) return fromNote;
  }
  return reading;
}

function readObservationOnly(step: Step): { value: StepValue } | { error: string } | { unreadable: string } {
  const result = step.result as Record<string, unknown> | undefined;
  if (step.status !== 'corrected' && result && typeof result === 'object') {
    if (typeof result.error === 'string') return { error: result.error };
    const value: StepValue = {};
    if (typeof result.value === 'number') value.value = result.value;
    if (typeof result.unit === 'string') value.unit = result.unit;
    if (typeof result.date === 'string') value.date = result.date;
    if (typeof result.weekday === 'string') value.weekday = result.weekday;
    if (value.value !== undefined || value.date !== undefined) return { value };
  }
  const text = step.content;
  const tail = text.includes('=') ? text.slice(text.lastIndexOf('=') + 1) : text;
  const date = /\d{4}-\d{2}-\d{2}/u.exec(tail)?.[0];
  const numbers = tail.replace(/\d{4}-\d{2}-\d{2}/gu, ' ').replace(/(\d),(?=\d{3}\b)/gu, '$1').match(/-?\d+(?:\.\d+)?/gu) ?? [];
  const number = text.includes('=') ? numbers[0] : numbers[numbers.length - 1];
  if (number === undefined && date === undefined) return { unreadable: text };
  const weekday = date === undefined ? undefined : WEEKDAY.exec(tail)?.[0];
  return {
    value: {
      ...(number === undefined ? {} : { value: Number(number) }),
      ...(date === undefined ? {} : { date }),
      ...(weekday === undefined ? {} : { weekday: weekday[0]?.toUpperCase() + weekday.slice(1).toLowerCase() }),
    },
  };
}

function recordToolCall(state: ChainState, step: Step, tools: AgentToolbox): void {
  const tool = step.tool ?? '';
  if (tool === ASK_USER_TOOL) {
    // The agent's question (or the user's rewrite of it): the server asks it, and its answer comes as the observation.
    // Input that does not fit is answered at once like any tool's (PROTOCOL.md §25.1), checked by the one schema.
    const checked = checkToolInput(askUserTool, tool, step.content);
    state.pending = checked.ok ? { tool, question: checked.input as AskUserInput } : { tool, error: checked.message };
    return;
  }
  const checked = tools.checkInput(tool, step.content);
  if (!checked.ok) {
    state.pending = { tool, error: checked.message };
    return;
  }
  const call = asPlannedCall(tool, checked.input);
  state.pending = { tool, input: checked.input, ...(call ? { call } : {}) };
  const planned = state.plan.kind === 'solve' ? state.plan.steps[state.nextStep]?.call(state.lastValue, state.values) : undefined;
  if (!call || JSON.stringify(planned) !== JSON.stringify(call)) state.asPlanned = false;
}

function recordObservation(state: ChainState, step: Step): void {
  const reading = readObservation(step);
  const tool = step.tool ?? state.pending?.tool ?? '';
  if (state.pending?.call) state.lastCall = state.pending.call;
  state.pending = undefined;
  const stepIndex = state.nextStep;
  state.nextStep += 1;
  state.failure = undefined;
  if (step.status !== 'corrected' && isRefusalResult(step.result)) {
    const { by, reason } = step.result;
    // A user's reason that says what to do instead ("convert to kilograms instead") is a plan to follow, not only a refusal;
    // a timeout's or a rule's reason (PROTOCOL.md §19.4, §25.4) instructs nothing.
    const byUser = by !== 'server' && by !== POLICY_DECIDER;
    const instead = reason === undefined || !byUser ? undefined : insteadPlan(state.lang, reason, state.lastCall, state.lastValue);
    if (instead) {
      state.plan = instead;
      state.nextStep = 0;
      state.values = [];
      state.asPlanned = true;
      return;
    }
    state.failure = { kind: 'refused', tool, timedOut: by === 'server', ...(reason === undefined ? {} : { reason }) };
  } else if ('error' in reading) {
    state.failure = { kind: 'tool', tool, error: reading.error };
  } else if ('unreadable' in reading) {
    state.failure = { kind: 'unreadable', text: reading.unreadable };
  } else {
    state.lastValue = reading.value;
    state.values[stepIndex] = reading.value;
    state.fromTool = step.status !== 'corrected';
    if (!state.fromTool) state.asPlanned = false;
  }
}

/**
 * The user answered the agent's `ask_user` call (PROTOCOL.md §25.2): the plan that asked settles
 * what to do with the answer, and the turn goes on from there as from a new start.
 */
function takeUserReply(state: ChainState, step: Step): void {
  state.pending = undefined;
  if (state.plan.kind !== 'ask') return;
  applySettled(state, state.plan.settle(readUserReply(step)));
  state.last = 'answer';
}

function applySettled(state: ChainState, settled: Settled): void {
  state.plan = settled.plan;
  if (settled.question) state.question = settled.question;
  if (settled.text !== undefined) state.task = settled.text;
  state.nextStep = 0;
  state.values = [];
  state.asPlanned = true;
  state.failure = undefined;
}

/** What a final answer leaves for follow-ups: the result it reports (a user's rewritten answer: the number it states). */
function recordAnswer(state: ChainState, step: Step): void {
  state.turnOpen = false;
  // A reply computed nothing: the answer before it still stands.
  if (state.plan.kind === 'reply') return;
  if (step.status === 'corrected') {
    const reading = readObservation(step);
    state.answer = 'value' in reading ? reading.value : undefined;
    return;
  }
  state.answer = state.failure ? undefined : withResultUnit(state.lastValue, state.plan);
}

/** A calculator's result carries no unit: the plan's says what it measures (625 is grams), so a follow-up can convert it. */
function withResultUnit(value: StepValue | undefined, plan: Plan): StepValue | undefined {
  if (value?.value === undefined || value.unit !== undefined || plan.kind !== 'solve' || plan.resultUnit === undefined) return value;
  return { ...value, unit: plan.resultUnit };
}

/** A message without words (a bare "25%") is answered in the language the conversation was in. */
function messageLanguage(text: string, previous: Lang): Lang {
  if (languageOf(text) === 'zh') return 'zh';
  return /\p{L}/u.test(text) ? 'en' : previous;
}

/** A user message starts a new turn: its plan replaces the current one, and the agent continues from the message. */
function startTurn(state: ChainState, step: Step, previous: ChainState['last']): void {
  const lang = messageLanguage(step.content, state.lang);
  // Right after another message, the earlier one's turn has not run yet: this one builds on it as steering does.
  const steering = state.turnOpen || previous === 'user_message';
  const turn = planTurn(step.content, { lang, question: state.question, ...(state.answer ? { answer: state.answer } : {}), steering });
  state.task = turn.text;
  state.lang = lang;
  state.plan = turn.plan;
  state.question = turn.question;
  state.answer = turn.answer;
  // The turn's steps start over: nothing of the calls, values or failure of the turn before carries into them.
  state.nextStep = 0;
  state.values = [];
  state.fromTool = false;
  state.asPlanned = true;
  state.pending = undefined;
  state.lastCall = undefined;
  state.lastValue = undefined;
  state.failure = undefined;
  state.actionText = undefined;
}

/**
 * Read the chain from its root: the plan from the task, revised by corrected thoughts and actions,
 * the results so far, and a new turn at each user message.
 */
export function readChain(task: string, chain: readonly Step[], tools: AgentToolbox): ChainState {
  const lang = languageOf(task);
  const state: ChainState = {
    task,
    lang,
    plan: planTask(task, lang),
    nextStep: 0,
    last: 'none',
    values: [],
    fromTool: false,
    asPlanned: true,
    question: { text: task, operations: [] },
    turnOpen: false,
  };
  for (const step of chain) {
    const previous = state.last;
    state.last = step.kind;
    state.remark = undefined;
    switch (step.kind) {
      case 'thought':
        state.turnOpen = true;
        applyRevision(state, step);
        break;
      case 'action':
        state.turnOpen = true;
        state.actionText = step.content;
        applyRevision(state, step);
        break;
      case 'tool_call':
        state.turnOpen = true;
        recordToolCall(state, step, tools);
        break;
      case 'observation':
        state.turnOpen = true;
        if (step.tool === ASK_USER_TOOL) takeUserReply(state, step);
        else recordObservation(state, step);
        break;
      case 'final_answer':
        recordAnswer(state, step);
        break;
      case 'user_message':
        startTurn(state, step, previous);
        break;
    }
  }
  return state;
}
