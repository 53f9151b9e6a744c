import { errorFrame, issuesToDetails } from '../parse.js';
import { AGENT_ERROR_CODES, type AgentErrorCode, type AgentErrorFrame } from './errors.js';
import { WORKER_MESSAGE_TYPES, WorkerMessageSchema, type WorkerMessage } from './messages.js';

/** The outcome of parsing one worker frame: the message, or a ready `error` frame to send back. */
export type WorkerParseResult = { ok: true; message: WorkerMessage } | { ok: false; error: AgentErrorFrame };

const workerTypes: ReadonlySet<string> = new Set(WORKER_MESSAGE_TYPES);

/** An agent wire `error` frame, bounded like Part I's (no amplification by a frame of unknown keys). */
export function agentErrorFrame(
  code: AgentErrorCode,
  message: string,
  names: { requestId?: string | undefined; runId?: string | undefined; ref?: string | undefined } = {},
  details?: Parameters<typeof errorFrame>[3],
): AgentErrorFrame {
  const { requestId: _ignored, ...bounded } = errorFrame(code as never, message, undefined, details);
  void _ignored;
  const frame: AgentErrorFrame = { ...bounded, code };
  if (typeof names.requestId === 'string' && names.requestId.length <= 64) frame.requestId = names.requestId;
  if (typeof names.runId === 'string' && names.runId.length <= 128) frame.runId = names.runId;
  if (typeof names.ref === 'string' && names.ref.length <= 128) frame.ref = names.ref;
  return frame;
}

/** The names a refused frame carried, so its error can point at them. */
function namesOf(value: unknown): { requestId?: string; runId?: string; ref?: string } {
  if (value === null || typeof value !== 'object') return {};
  const record = value as Record<string, unknown>;
  const names: { requestId?: string; runId?: string; ref?: string } = {};
  if (typeof record.id === 'string') names.requestId = record.id;
  if (typeof record.runId === 'string') names.runId = record.runId;
  if (typeof record.ref === 'string') names.ref = record.ref;
  return names;
}

/** Parse and validate one worker frame (PROTOCOL.md Part II §A9): BAD_JSON, UNKNOWN_TYPE or BAD_FRAME with details. */
export function parseWorkerMessage(text: string): WorkerParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return { ok: false, error: agentErrorFrame(AGENT_ERROR_CODES.BAD_JSON, 'The frame is not valid JSON: send one JSON object per text frame.') };
  }
  const names = namesOf(value);
  const type = value !== null && typeof value === 'object' ? (value as { type?: unknown }).type : undefined;
  if (typeof type !== 'string' || !workerTypes.has(type)) {
    const shown = typeof type === 'string' ? `"${type.slice(0, 64)}"` : 'missing';
    return { ok: false, error: agentErrorFrame(AGENT_ERROR_CODES.UNKNOWN_TYPE, `The frame's type is ${shown}; a worker sends one of ${WORKER_MESSAGE_TYPES.join(', ')}.`, names) };
  }
  const parsed = WorkerMessageSchema.safeParse(value);
  if (!parsed.success) {
    return { ok: false, error: agentErrorFrame(AGENT_ERROR_CODES.BAD_FRAME, `The ${type} frame does not match its schema (PROTOCOL.md Part II).`, names, issuesToDetails(parsed.error.issues)) };
  }
  return { ok: true, message: parsed.data };
}
