import { z } from 'zod';

/**
 * What a step is: the agent's reasoning, its plan, a tool call, the tool's result, its answer, or
 * what the user said (`user_message`, additive, capability `conversation`). Clients tolerate kinds
 * they do not know (PROTOCOL.md §2.3). Its own module, so the schemas a step holds can name kinds.
 */
export const StepKindSchema = z.enum(['thought', 'action', 'tool_call', 'observation', 'final_answer', 'user_message']);

/** The kinds an agent writes: every kind but the user's own `user_message`. */
export const AgentStepKindSchema = StepKindSchema.exclude(['user_message']);
