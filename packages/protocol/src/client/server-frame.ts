import { SERVER_MESSAGE_TYPES, type ServerMessage } from '../messages.js';

const knownTypes: ReadonlySet<string> = new Set(SERVER_MESSAGE_TYPES);

/**
 * Whether a frame of a type this version does not know is a session event of a newer server: it
 * takes a `seq`, so it must still move cursors and reducers on, or the next event would look like a gap.
 */
export function isUnknownSessionEvent(value: { type: string }): boolean {
  const event = value as { type: string; sessionId?: unknown; seq?: unknown };
  return !knownTypes.has(event.type) && typeof event.sessionId === 'string' && Number.isSafeInteger(event.seq) && (event.seq as number) >= 1;
}

/**
 * Read one server frame: `JSON.parse` and a check of its `type`, nothing more. Outbound frames are
 * not re-validated with zod (that would cost per delta). A session event of an unknown type (a
 * newer server) is passed on, since it takes a `seq` (see `isUnknownSessionEvent`); other frames of
 * unknown types, and frames that are not JSON objects, are ignored: the result is `undefined`.
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
  if (typeof type !== 'string') return undefined;
  return knownTypes.has(type) || isUnknownSessionEvent(value as { type: string }) ? (value as ServerMessage) : undefined;
}
