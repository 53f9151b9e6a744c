import { z } from 'zod';
import {
  AGENT_ERROR_CODES,
  AGENT_PROTOCOL_VERSION,
  AgentLimitsSchema,
  AgentServerMessageSchema,
  PendingCallSchema,
  StepSchema,
  WorkerMessageSchema,
  type AgentServerMessageType,
  type WorkerMessageType,
} from '../src/index.js';
import type { MessageEntry } from './schema-catalog.js';

type Json = Record<string, unknown>;

/** Every worker frame of `interthought-agent/1`; a `Record`, so a new type cannot be left out. */
export const WORKER_MESSAGES: Record<WorkerMessageType, MessageEntry> = {
  'agent.register': { id: 'AgentRegister', summary: 'Serve these agents: runs of them may come to this worker.' },
  'step.start': { id: 'WorkerStepStart', summary: "Start a step of a run on the head of the session's chain; `ref` is the worker's name for it." },
  'step.delta': { id: 'WorkerStepDelta', summary: 'Append text to an open step.' },
  'step.end': { id: 'WorkerStepEnd', summary: 'Finish a step; `result` is a tool\'s structured output.' },
  usage: { id: 'WorkerUsage', summary: 'What one model call used, once, after its steps.' },
  notice: { id: 'WorkerNotice', summary: 'A transient condition the user should see; the status is unchanged.' },
  'run.end': { id: 'RunEnd', summary: 'The run is done.' },
  'run.fail': { id: 'RunFail', summary: 'The run failed; the session fails with the message.' },
  'tool.run': { id: 'ToolRun', summary: "Run a server-side tool; the server writes the tool_call and observation steps and answers with tool.result." },
};

/** Every server frame of `interthought-agent/1`. */
export const AGENT_SERVER_MESSAGES: Record<AgentServerMessageType, MessageEntry> = {
  hello: { id: 'AgentHello', summary: 'The first frame on every worker connection: protocol version and limits.' },
  'agent.registered': { id: 'AgentRegistered', summary: 'The answer to agent.register: every agent the worker serves now.' },
  'run.start': { id: 'RunStart', summary: 'Run an agent on a session, continuing after the chain\'s last step.' },
  'run.abort': { id: 'RunAbort', summary: 'Stop the run now (a correction, cancel, approval wait, budget stop, shutdown).' },
  'call.cleared': { id: 'CallCleared', summary: "The worker's tool call does not wait for approval: run the tool now." },
  flow: { id: 'Flow', summary: 'Wait (paused: true) or go on (paused: false) sending the run\'s frames.' },
  'tool.result': { id: 'ToolRunResult', summary: 'The answer to tool.run: the tool\'s output or its own error.' },
  error: { id: 'AgentErrorFrame', summary: 'A worker frame could not be carried out; it never ends another run.' },
};

/** Every agent wire error code as an enum, for documentation: workers tolerate codes they do not know. */
const AgentErrorCodeSchema = z.enum(Object.values(AGENT_ERROR_CODES) as [string, ...string[]]);

type SchemaMeta = { id: string; description: string };

/** The JSON Schema (draft 2020-12) of `/ws/agents`: any frame is a `WorkerMessage` or an `AgentServerMessage`. */
export function buildAgentWireJsonSchema(version: string): Json {
  const registry = z.registry<SchemaMeta>();
  registry.add(WorkerMessageSchema, { id: 'WorkerMessage', description: 'Any frame a worker may send (strict: unknown fields are refused).' });
  registry.add(AgentServerMessageSchema, { id: 'AgentServerMessage', description: 'Any frame the server sends a worker (tolerant: workers ignore unknown fields and types).' });
  registry.add(StepSchema, { id: 'Step', description: "A node of the session's step tree, as run.start's chain carries it." });
  registry.add(PendingCallSchema, { id: 'PendingCall', description: "The worker's own tool call at the head of the chain, to run first." });
  registry.add(AgentLimitsSchema, { id: 'AgentLimits', description: 'Limits the server enforces on a worker connection.' });
  registry.add(AgentErrorCodeSchema, { id: 'AgentErrorCode', description: 'The error codes this version knows; error.code may carry newer ones.' });
  for (const schema of WorkerMessageSchema.options) {
    const entry = WORKER_MESSAGES[schema.shape.type.value];
    registry.add(schema, { id: entry.id, description: entry.summary });
  }
  for (const schema of AgentServerMessageSchema.options) {
    const entry = AGENT_SERVER_MESSAGES[schema.shape.type.value];
    registry.add(schema, { id: entry.id, description: entry.summary });
  }
  const { schemas } = z.toJSONSchema(registry, { metadata: registry, uri: (id) => `#/$defs/${id}` });
  const definitions: Record<string, Json> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema, $id, ...rest } = schema as Json;
    void $schema;
    void $id;
    definitions[id] = rest;
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `Interthought agent wire protocol ${AGENT_PROTOCOL_VERSION} (@interthought/protocol ${version})`,
    description:
      'Every frame of the /ws/agents WebSocket (PROTOCOL.md Part II). Generated from the zod schemas of @interthought/protocol by scripts/generate-schemas.ts: do not edit.',
    anyOf: [{ $ref: '#/$defs/WorkerMessage' }, { $ref: '#/$defs/AgentServerMessage' }],
    $defs: definitions,
  };
}
