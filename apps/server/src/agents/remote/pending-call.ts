import type { PendingCallReason, Step } from '@interthought/protocol';

/** A tool call at the head of the chain that no observation answered yet. */
export interface UnansweredCall {
  step: Step;
  tool: string;
  why: PendingCallReason;
}

/** A tool call's input: its content parsed as JSON, or the raw text (as `approval.requested` shows it). */
export function callInput(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/** The chain's last step when it is a tool call nobody ran, and why it is there (PROTOCOL.md Part II §A6.1). */
export function unansweredCallOf(chain: readonly Step[]): UnansweredCall | undefined {
  const head = chain[chain.length - 1];
  if (head?.kind !== 'tool_call' || head.tool === undefined) return undefined;
  const state = head.approval?.state;
  // A call a rule or a remembered approval let through was cleared in its own run (PROTOCOL.md §25.6): left unanswered, it is resumed, not approved.
  const approved = state === 'approved' && head.approval?.via === undefined;
  const why: PendingCallReason = approved ? 'approved' : state === 'edited' ? 'edited' : head.correctionOf !== undefined ? 'corrected' : 'resumed';
  return { step: head, tool: head.tool, why };
}
