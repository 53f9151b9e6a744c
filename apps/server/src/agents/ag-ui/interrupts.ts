import type { Interrupt, ResumeEntry } from '@ag-ui/core';
import type { ApprovalPolicy, Step } from '@interthought/protocol';
import type { ThreadMemory } from './thread-memory.js';

/*
 * AG-UI interrupts (spec "Interrupts and Resume") meet the session's approvals. A run that ends
 * with an interrupt for a tool call makes that call wait for the user, unless the session's policy
 * says the tool never waits; the user's decision is the resume entry of the next run. Any other
 * interrupt is a question: it becomes the final answer, and the user's next message answers it.
 */

/** Whether an interrupted call of `tool` waits for the user: the agent asked, so yes, unless the policy says this tool never waits. */
export function interruptWaits(policy: ApprovalPolicy | undefined, tool: string | undefined): boolean {
  if (policy === 'none') return false;
  if (Array.isArray(policy)) return tool !== undefined && policy.includes(tool);
  return true;
}

/** Whether an interrupt concerns a tool call (by its id, or by the reason the spec's examples use). */
export function isToolInterrupt(interrupt: Interrupt): boolean {
  return interrupt.toolCallId !== undefined || interrupt.reason === 'tool_call';
}

/** The answer the bridge gives itself for a call the policy lets through. */
export function approvedEntry(interrupt: Interrupt): ResumeEntry {
  return { interruptId: interrupt.id, status: 'resolved', payload: { approved: true } };
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
    const stepId = pending.stepIds.get(interrupt.id);
    const at = stepId === undefined ? -1 : chain.findIndex((step) => step.stepId === stepId || step.correctionOf === stepId);
    if (at < 0) return { interruptId: interrupt.id, status: 'cancelled' };
    if (chain[at]!.kind === 'tool_call') {
      const decision = callDecision(chain, at);
      return decision === undefined ? { interruptId: interrupt.id, status: 'cancelled' } : { interruptId: interrupt.id, status: 'resolved', payload: decision };
    }
    const reply = chain.slice(at + 1).find((step) => step.kind === 'user_message');
    return reply === undefined ? { interruptId: interrupt.id, status: 'cancelled' } : { interruptId: interrupt.id, status: 'resolved', payload: reply.content };
  });
}
