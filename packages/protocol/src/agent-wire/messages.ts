import { z } from 'zod';
import { AgentErrorFrameSchema } from './errors.js';
import { AgentHelloSchema } from './hello.js';
import { AgentRegisterSchema, AgentRegisteredSchema } from './register.js';
import { CallClearedSchema, FlowSchema, RunAbortSchema, RunEndSchema, RunFailSchema, RunStartSchema } from './run.js';
import { WorkerNoticeSchema, WorkerStepDeltaSchema, WorkerStepEndSchema, WorkerStepStartSchema, WorkerUsageSchema } from './steps.js';
import { ToolRunResultSchema, ToolRunSchema } from './tool-run.js';

/** Every frame a worker may send on `/ws/agents` (strict: unknown fields are refused). */
export const WorkerMessageSchema = z.discriminatedUnion('type', [
  AgentRegisterSchema,
  WorkerStepStartSchema,
  WorkerStepDeltaSchema,
  WorkerStepEndSchema,
  WorkerUsageSchema,
  WorkerNoticeSchema,
  RunEndSchema,
  RunFailSchema,
  ToolRunSchema,
]);

/** Every frame the server sends a worker (tolerant: workers ignore unknown fields and types). */
export const AgentServerMessageSchema = z.discriminatedUnion('type', [
  AgentHelloSchema,
  AgentRegisteredSchema,
  RunStartSchema,
  RunAbortSchema,
  FlowSchema,
  CallClearedSchema,
  ToolRunResultSchema,
  AgentErrorFrameSchema,
]);

export type WorkerMessage = z.infer<typeof WorkerMessageSchema>;
export type WorkerMessageType = WorkerMessage['type'];
export type AgentServerMessage = z.infer<typeof AgentServerMessageSchema>;
export type AgentServerMessageType = AgentServerMessage['type'];

/** Every worker frame type, in the union's order. */
export const WORKER_MESSAGE_TYPES = WorkerMessageSchema.options.map((schema) => schema.shape.type.value) as readonly WorkerMessageType[];
/** Every server frame type of the agent wire, in the union's order. */
export const AGENT_SERVER_MESSAGE_TYPES = AgentServerMessageSchema.options.map((schema) => schema.shape.type.value) as readonly AgentServerMessageType[];
