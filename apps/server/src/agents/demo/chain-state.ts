import { isRefusalResult, type Step, type StepKind } from '@interthought/protocol';
import type { ToolRegistry } from '../../tools/tool-registry.js';
import { arithmeticAnswer, expressionPlan } from './recognize-arithmetic.js';
import { conversionAnswer, conversionPlan } from './recognize-conversion.js';
import { languageOf, say, type Lang } from './language.js';
import type { Plan, PlannedCall, SolvePlan, StepValue } from './plan.js';
import { analyseTask } from './problem-analyser.js';
import { reviseFromStep } from './revision.js';
import { findUnit } from '../../tools/units.js';

/** The tool call at the head of the chain, waiting for its observation. */
export type PendingCall = { tool: string; call?: PlannedCall; input?: unknown; error?: string };

/** Where the demo agent stands after reading the chain: its plan and how far it got. */
export interface ChainState {
  task: string;
  lang: Lang;
  plan: Plan;
  /** The plan step the next tool call is for. */
  nextStep: number;
  /** The last step's kind (`none` for an empty chain): the agent continues after it. */
  last: StepKind | 'none';
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

function recordToolCall(state: ChainState, step: Step, tools: ToolRegistry): void {
  const tool = step.tool ?? '';
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

/** Read the chain from its root: the plan from the task, revised by corrected thoughts and actions, and the results so far. */
export function readChain(task: string, chain: readonly Step[], tools: ToolRegistry): ChainState {
  const lang = languageOf(task);
  const state: ChainState = { task, lang, plan: analyseTask(task, lang), nextStep: 0, last: 'none', values: [], fromTool: false, asPlanned: true };
  for (const step of chain) {
    state.last = step.kind;
    state.remark = undefined;
    switch (step.kind) {
      case 'thought':
        applyRevision(state, step);
        break;
      case 'action':
        state.actionText = step.content;
        applyRevision(state, step);
        break;
      case 'tool_call':
        recordToolCall(state, step, tools);
        break;
      case 'observation':
        recordObservation(state, step);
        break;
      case 'final_answer':
        break;
    }
  }
  return state;
}
