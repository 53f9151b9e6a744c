import type { CalculatorInput } from '../../tools/calculator.js';
import type { DateCalculatorInput } from '../../tools/date-calculator.js';
import type { UnitConverterInput } from '../../tools/unit-converter.js';
import type { Question } from './follow-up-question.js';
import type { Lang } from './language.js';

/** A tool call the demo agent makes: the tool's name and its input (the tool_call step's JSON). */
export type PlannedCall =
  | { tool: 'calculator'; input: CalculatorInput }
  | { tool: 'unit_converter'; input: UnitConverterInput }
  | { tool: 'date_calculator'; input: DateCalculatorInput };

/** What a tool step produced, as far as the next step and the answer need it. */
export interface StepValue {
  value?: number;
  /** The unit of `value`, when the tool reports one (the unit converter does). */
  unit?: string;
  /** A calendar date, for date_calculator's add_days. */
  date?: string;
  /** The date's day of the week (English, as the date calculator reports it). */
  weekday?: string;
}

/** What the final answer is computed from. */
export interface Outcome extends StepValue {
  /** The call whose observation gave the value (undefined if the chain holds none). */
  call?: PlannedCall;
  /** The value is the tool's own result (not a number read from a user-corrected observation). */
  fromTool: boolean;
  /** The call ran as planned (not corrected) and the tool produced the value: answers may restate the plan's inputs. */
  asPlanned: boolean;
  /** What each plan step produced on the chain, by step index (a plan of several parts answers each from its own). */
  values?: ReadonlyArray<StepValue | undefined>;
}

/**
 * One tool use of a plan. Later steps build their input from the previous step's value, or from
 * any earlier step's (`values[i]` is what step i produced on this chain, corrected or not).
 */
export interface PlanStep {
  call(previous: StepValue | undefined, values?: ReadonlyArray<StepValue | undefined>): PlannedCall;
  /** Announces a later step in the first action: "Then I'll convert the result to m/s." */
  preview?: string;
}

/** A problem the agent can solve with tools. */
export interface SolvePlan {
  kind: 'solve';
  lang: Lang;
  /** Understanding the problem: what is asked and the quantities. */
  thought: string;
  /** Why these calls, said before the first one is announced. */
  approach: string;
  steps: PlanStep[];
  /** Task numbers the plan accounts for that its tool calls hold in another form (打8折 runs as 80%). */
  uses?: number[];
  /**
   * The unit of the plan's result where its last tool reports none: the calculator's 625 is
   * grams in "250 g flour for 4 people …". A follow-up converts the answer from it ("in kilograms?").
   */
  resultUnit?: string;
  /** The final answer for an outcome (a number with its unit, in a sentence). */
  answer(outcome: Outcome): string;
}

/** A task the agent cannot compute: it says so and lays out a plan instead (no tool calls). */
export interface AdvicePlan {
  kind: 'advice';
  lang: Lang;
  thought: string;
  action: string;
  /** The closing answer; `action` is the plan text on the chain (the user may have rewritten it). */
  answer(action: string): string;
}

/** A turn answered without tools: what the agent made of the user's message, then its answer (e.g. that it did not understand it). */
export interface ReplyPlan {
  kind: 'reply';
  lang: Lang;
  thought: string;
  answer: string;
}

/** What the user answered to the agent's question (PROTOCOL.md §25.2), or that nobody answered in time. */
export type UserReply = { text: string; choice?: number } | { unanswered: true };

/** What an answered question settles: the plan to go on with and, when it changed, what the turn now answers. */
export interface Settled {
  plan: Plan;
  /** The question the turn answers from here on (a follow-up's number, once picked). */
  question?: Question;
  /** The text the plan solves, which a later corrected thought revises (the task with the missing number filled in). */
  text?: string;
}

/**
 * A task a question to the user would settle (which number a follow-up replaces, which reading
 * is meant, a missing number): the agent asks with `ask_user` (PROTOCOL.md §25.1) and, on its
 * next run, goes on with what the answer settles.
 */
export interface AskPlan {
  kind: 'ask';
  lang: Lang;
  /** Why it asks, before the question. */
  thought: string;
  /** The `ask_user` input: the question as the user reads it, and the answers to pick with one click. */
  question: string;
  choices?: string[];
  settle(reply: UserReply): Settled;
}

export type Plan = SolvePlan | AdvicePlan | ReplyPlan | AskPlan;

/** A solve plan of one calculator call. */
export function calculatorStep(expression: string): PlanStep {
  return { call: () => ({ tool: 'calculator', input: { expression } }) };
}
