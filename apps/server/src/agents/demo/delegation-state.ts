import { DELEGATE_TOOL, DelegateInputSchema, type Step } from '@interthought/protocol';
import type { AgentToolbox } from '@interthought/agent';
import { listedParts, partName, splitThought } from './delegation-narration.js';
import { languageOf, type Lang } from './language.js';
import { splitTask } from './task-parts.js';

/** A delegate call of the batch: on the chain already, or just written. */
export interface DelegateCall {
  /** The tool_call step: the sub-agent's scope. */
  stepId: string;
  /** The part it delegates and its label, as the final answer names them. */
  task: string;
  name: string;
  /** The checked input to run the delegate tool with, or why the call's content cannot run. */
  input?: unknown;
  error?: string;
}

/** Where a delegated turn stands: thought → delegate calls (one batch) → their observations → final answer. */
export interface DelegationState {
  lang: Lang;
  /** The parts to delegate: the task's, or the ones a user's correction of the split thought lists. */
  parts: string[];
  thoughtWritten: boolean;
  calls: DelegateCall[];
  /** The batch's observations on the chain, in call order (the first `observations.length` calls have theirs). */
  observations: Step[];
  answered: boolean;
}

function isDelegateCall(step: Step | undefined): step is Step {
  return step?.kind === 'tool_call' && step.tool === DELEGATE_TOOL;
}

/** A delegate call on the chain as the batch runs it: its input checked by the toolbox, its part read for the answer. */
function readCall(step: Step, index: number, lang: Lang, tools: AgentToolbox): DelegateCall {
  let parsed: unknown;
  try {
    parsed = JSON.parse(step.content);
  } catch {
    parsed = undefined;
  }
  const shown = DelegateInputSchema.safeParse(parsed);
  const task = shown.success ? shown.data.task : step.content;
  const name = (shown.success ? shown.data.name : undefined) ?? partName(lang, index);
  const base = { stepId: step.stepId, task, name };
  // Without the tool the call still "runs": the observation says the tool is unknown.
  if (!tools.get(DELEGATE_TOOL)) return { ...base, input: parsed };
  const checked = tools.checkInput(DELEGATE_TOOL, step.content);
  return checked.ok ? { ...base, input: checked.input } : { ...base, error: checked.message };
}

/** The parts a corrected split thought asks for: its numbered list, else the questions its text splits into. */
function partsOfThought(thought: string, lang: Lang): string[] | undefined {
  const listed = listedParts(thought);
  return listed.length > 0 ? listed : splitTask(thought, lang);
}

/**
 * Read the chain as a delegated turn, or undefined when the agent answers it itself: a task of
 * one question, a server without the `delegate` tool (it answers the parts one after another,
 * sequential-parts.ts), a conversation that went on with a user message, or a split thought the
 * user rewrote into a single calculation.
 */
export function readDelegation(task: string, chain: readonly Step[], tools: AgentToolbox): DelegationState | undefined {
  if (chain.some((step) => step.kind === 'user_message')) return undefined;
  const lang = languageOf(task);
  const [thought, ...rest] = chain;
  if (thought && thought.kind !== 'thought') return undefined;
  const canDelegate = tools.get(DELEGATE_TOOL) !== undefined;
  const parts = thought?.status === 'corrected' ? partsOfThought(thought.content, lang) : canDelegate ? splitTask(task, lang) : undefined;
  const batchStarted = isDelegateCall(rest[0]);
  // A chain that went on past its thought without delegating (answered part after part) stays that way.
  if (!batchStarted && (!canDelegate || !parts || rest.length > 0)) return undefined;

  const calls: DelegateCall[] = [];
  let at = 0;
  for (; isDelegateCall(rest[at]); at++) calls.push(readCall(rest[at] as Step, at, lang, tools));
  const observations: Step[] = [];
  for (; observations.length < calls.length && rest[at]?.kind === 'observation'; at++) observations.push(rest[at] as Step);
  return {
    lang,
    parts: parts ?? calls.map((call) => call.task),
    thoughtWritten: thought !== undefined,
    calls,
    observations,
    answered: chain.at(-1)?.kind === 'final_answer',
  };
}

/**
 * The task the agent answers itself after a user rewrote its split thought into one question
 * ("I only need 17 * 23 + 4"): the rewritten thought, read as the task. Undefined otherwise.
 */
export function rewrittenSplitTask(task: string, chain: readonly Step[]): string | undefined {
  const [thought] = chain;
  if (thought?.kind !== 'thought' || thought.status !== 'corrected' || chain.some((step) => step.kind === 'user_message')) return undefined;
  const lang = languageOf(task);
  const parts = splitTask(task, lang);
  const wasSplit = parts !== undefined && thought.correction?.previousContent === splitThought(lang, parts);
  return wasSplit ? thought.content : undefined;
}
