import type { Interrupt, ResumeEntry } from '@ag-ui/core';
import { ASK_USER_LIMITS, ASK_USER_TOOL, AskUserInputSchema, type AnswerResult, type ApprovalPolicy, type AskUserInput, type Step, type UnansweredResult, policyVerdict } from '@interthought/protocol';
import type { ThreadMemory } from './thread-memory.js';

/*
 * AG-UI interrupts (spec "Interrupts and Resume") meet the session's approvals and questions
 * (PROTOCOL.md §25.6). A run that ends with an interrupt for a tool call makes that call wait for
 * the user, unless the session's policy says the tool never waits; the user's decision is the
 * resume entry of the next run. An interrupt for the agent's own `ask_user` call, and any interrupt
 * not about a tool call, is a question: the session waits for the answer, which is the resume
 * entry `{ status: "resolved", payload: { text } }` of the next run.
 */

/**
 * Whether an interrupted call of `tool` waits for the user: the agent asked, so yes, unless the
 * policy lets this call run without asking (the one evaluator, `policyVerdict`; a rule's deny
 * waits too, so the user refuses it — the bridge cannot refuse a call the agent holds itself).
 */
export function interruptWaits(policy: ApprovalPolicy | undefined, tool: string | undefined, input?: unknown): boolean {
  if (tool === undefined) return policy !== 'none' && !Array.isArray(policy);
  return policyVerdict(policy, tool, input, true).decision !== 'allow';
}

/** Whether an interrupt concerns a tool call (by its id, or by the reason the spec's examples use). */
export function isToolInterrupt(interrupt: Interrupt): boolean {
  return interrupt.toolCallId !== undefined || interrupt.reason === 'tool_call';
}

/** The answer the bridge gives itself for a call the policy lets through. */
export function approvedEntry(interrupt: Interrupt): ResumeEntry {
  return { interruptId: interrupt.id, status: 'resolved', payload: { approved: true } };
}

/** What the bridge asks for an interrupt that is not about a tool call when the agent says nothing. */
export const DEFAULT_QUESTION = 'The agent needs your input.';

/** The answers an interrupt's `responseSchema` allows, when it lists them (`enum`, at the top or of its one property). */
function enumOf(schema: unknown): unknown[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const { enum: values, properties } = schema as { enum?: unknown; properties?: unknown };
  if (Array.isArray(values)) return values;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const listed = Object.values(properties).filter((property) => Array.isArray((property as { enum?: unknown } | null)?.enum));
  return listed.length === 1 ? ((listed[0] as { enum: unknown[] }).enum) : undefined;
}

/**
 * The `ask_user` input of an interrupt that is a question: its `message` (else `DEFAULT_QUESTION`),
 * and as `choices` the values of its `responseSchema`'s `enum` when it has one. Cut to what
 * `ask_user` takes, so the call is always a question the session waits on (PROTOCOL.md §25.1).
 */
export function questionOf(interrupt: Interrupt): AskUserInput {
  const message = interrupt.message?.trim() ? interrupt.message : DEFAULT_QUESTION;
  const question = message.slice(0, ASK_USER_LIMITS.questionMax);
  const values = (enumOf(interrupt.responseSchema) ?? []).filter((value) => ['string', 'number', 'boolean'].includes(typeof value)).map(String);
  const choices = [...new Set(values.filter((value) => value.length > 0 && value.length <= ASK_USER_LIMITS.choiceMax))].slice(0, ASK_USER_LIMITS.choicesMax);
  const input = { question, ...(choices.length === 0 ? {} : { choices }) };
  return AskUserInputSchema.parse(input);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** What the chain says about the interrupted call at `at`: the user's decision, or undefined when it has none. */
function callDecision(chain: readonly Step[], at: number): unknown {
  const call = chain[at]!;
  const next = chain[at + 1];
  const refusal = next?.kind === 'observation' ? (next.result as { refused?: unknown; reason?: unknown } | undefined) : undefined;
  if (refusal?.refused === true) return { approved: false, ...(typeof refusal.reason === 'string' ? { reason: refusal.reason } : {}) };
  if (call.approval?.state === 'edited' || call.status === 'corrected') return { approved: true, arguments: parsed(call.content) };
  if (call.approval?.state === 'approved') return { approved: true };
  return undefined;
}

/** The user's answer to the question at `at` (PROTOCOL.md §25.2): undefined when it has none yet, or it timed out unanswered. */
function answerOf(chain: readonly Step[], at: number): { text: string } | undefined {
  const next = chain[at + 1];
  if (next?.kind !== 'observation' || next.tool !== ASK_USER_TOOL) return undefined;
  const result = next.result as Partial<AnswerResult & UnansweredResult> | undefined;
  if (result?.unanswered === true) return undefined;
  return { text: typeof result?.answer === 'string' ? result.answer : next.content };
}

function isQuestionStep(step: Step): boolean {
  return step.kind === 'tool_call' && step.tool === ASK_USER_TOOL;
}

/**
 * The resume entries that answer the interrupts the thread's last run ended with, read from the
 * chain; every interrupt is covered (the spec's rule): one the chain does not answer is abandoned.
 * The memory forgets them: they are answered once.
 */
export function resumeEntries(memory: ThreadMemory, chain: readonly Step[]): ResumeEntry[] {
  const pending = memory.pending;
  if (pending === undefined) return [];
  delete memory.pending;
  return pending.interrupts.map((interrupt): ResumeEntry => {
    if (pending.approved?.has(interrupt.id) === true) return approvedEntry(interrupt);
    const stepId = pending.stepIds.get(interrupt.id);
    const at = stepId === undefined ? -1 : chain.findIndex((step) => step.stepId === stepId || step.correctionOf === stepId);
    const cancelled: ResumeEntry = { interruptId: interrupt.id, status: 'cancelled' };
    if (at < 0) return cancelled;
    const step = chain[at]!;
    const decision = isQuestionStep(step) ? answerOf(chain, at) : step.kind === 'tool_call' ? callDecision(chain, at) : undefined;
    return decision === undefined ? cancelled : { interruptId: interrupt.id, status: 'resolved', payload: decision };
  });
}
