import { SERVER_MESSAGE_TYPES, type ServerMessage } from '../messages.js';

const knownTypes: ReadonlySet<string> = new Set(SERVER_MESSAGE_TYPES);

/**
 * Read one server frame: `JSON.parse` and a check of its `type`, nothing more. Outbound frames are
 * not re-validated with zod (that would cost per delta); frames of unknown types (a newer server)
 * and frames that are not JSON objects are ignored, so the result is `undefined`.
 */
export function readServerFrame(data: unknown): ServerMessage | undefined {
  if (typeof data !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && knownTypes.has(type) ? (value as ServerMessage) : undefined;
}
