import { z } from 'zod';
import { RequestIdSchema } from '../common.js';
import { AGENT_FIELD_LIMITS } from './version.js';

/** An agent name: what `session.create.agent` and `GET /api/agents` show. */
export const AgentNameSchema = z.string().min(1).max(AGENT_FIELD_LIMITS.agentNameMax);

/** One agent a worker serves. */
export const WorkerAgentSchema = z.strictObject({
  name: AgentNameSchema,
  description: z.string().max(AGENT_FIELD_LIMITS.descriptionMax),
});

/** `agent.register`: the worker serves these agents (added to what it served before). */
export const AgentRegisterSchema = z.strictObject({
  type: z.literal('agent.register'),
  id: RequestIdSchema.optional(),
  agents: z.array(WorkerAgentSchema).min(1).max(AGENT_FIELD_LIMITS.agentsPerWorkerMax),
});

/** `agent.registered`: the answer to `agent.register`; the agents listed now take runs from this worker. */
export const AgentRegisteredSchema = z.looseObject({
  type: z.literal('agent.registered'),
  requestId: RequestIdSchema.optional(),
  /** Every agent this worker serves now. */
  agents: z.array(z.looseObject({ name: z.string(), description: z.string() })),
});

export type WorkerAgent = z.infer<typeof WorkerAgentSchema>;
export type AgentRegister = z.infer<typeof AgentRegisterSchema>;
export type AgentRegistered = z.infer<typeof AgentRegisteredSchema>;
