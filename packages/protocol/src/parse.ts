import type { z } from 'zod';
import { ERROR_LIMITS } from './limits.js';
import { usableRequestId } from './session-rules.js';
import { findIllFormedText, mayHoldLoneSurrogate } from './text-rules.js';
import { ERROR_CODES, type ErrorCode, type ErrorDetail, type ErrorFrame } from './error.js';
import { CLIENT_MESSAGE_TYPES, ClientMessageSchema, type ClientMessage } from './messages.js';

/** The outcome of parsing one inbound frame: the message, or a ready `error` frame to send back. */
export type ParseResult = { ok: true; message: ClientMessage } | { ok: false; error: ErrorFrame };

const utf8 = new TextDecoder('utf-8', { fatal: true });
const clientTypes: ReadonlySet<string> = new Set(CLIENT_MESSAGE_TYPES);

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A detail within `ERROR_LIMITS`: its message and path clipped. */
function boundDetail(detail: ErrorDetail): ErrorDetail {
  const path = detail.path.slice(0, ERROR_LIMITS.pathMax).map((key) => (typeof key === 'string' ? clip(key, ERROR_LIMITS.pathSegmentMax) : key));
  return { ...detail, path, message: clip(detail.message, ERROR_LIMITS.messageMax) };
}

/**
 * Build an `error` frame, bounded by `ERROR_LIMITS` whatever it is given: what a request makes the
 * server say back is never much bigger than a frame (no amplification by a frame full of unknown keys).
 */
export function errorFrame(code: ErrorCode, message: string, requestId?: string, details?: ErrorDetail[]): ErrorFrame {
  const frame: ErrorFrame = { type: 'error', code, message: clip(message, ERROR_LIMITS.messageMax) };
  if (requestId !== undefined) frame.requestId = requestId;
  if (details !== undefined) frame.details = details.slice(0, ERROR_LIMITS.detailsMax).map(boundDetail);
  return frame;
}

/**
 * How much of an unknown key's name its detail's message repeats: the path already names it (up
 * to `pathSegmentMax`), and a name of characters JSON escapes 6 bytes wide, repeated whole, made
 * 20 details of a 60 KB frame a 68 KB error frame.
 */
const NAME_IN_MESSAGE_MAX = 32;

/**
 * The branch of a union the value came closest to fitting: the one whose issues lie deepest (an
 * `options.approve` of rules with one bad decision is a bad rule, not "Invalid input"). Undefined
 * when no branch went deeper than the union itself: its own issue says it best.
 */
function closestBranch(issue: z.core.$ZodIssue): readonly z.core.$ZodIssue[] | undefined {
  if (issue.code !== 'invalid_union' || !Array.isArray(issue.errors)) return undefined;
  let closest: readonly z.core.$ZodIssue[] | undefined;
  let depth = 0;
  for (const branch of issue.errors) {
    const deepest = Math.max(0, ...branch.map((inner) => inner.path.length));
    if (deepest > depth) {
      closest = branch;
      depth = deepest;
    }
  }
  return closest;
}

/** Zod issues as wire details: one `{ path, message }` per issue (and per unknown key, named in its path). */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[]): ErrorDetail[] {
  return issues.flatMap((issue) => {
    const path = issue.path.map((key) => (typeof key === 'number' ? key : String(key)));
    const branch = closestBranch(issue);
    if (branch !== undefined) return issuesToDetails(branch).map((detail) => ({ path: [...path, ...detail.path], message: detail.message }));
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key], message: `Unknown field "${clip(key, NAME_IN_MESSAGE_MAX)}"` }));
    }
    return [{ path, message: issue.message }];
  });
}

function decode(raw: string | ArrayBuffer | Uint8Array): string | null {
  if (typeof raw === 'string') return raw;
  try {
    return utf8.decode(raw instanceof ArrayBuffer ? new Uint8Array(raw) : raw);
  } catch {
    return null;
  }
}

function describeIssues(type: string, details: ErrorDetail[]): string {
  const first = details[0];
  if (!first) return `Invalid ${type} frame.`;
  const where = first.path.length ? first.path.join('.') : '(frame)';
  const more = details.length > 1 ? ` (and ${details.length - 1} more issue${details.length > 2 ? 's' : ''})` : '';
  const listed = details.length > ERROR_LIMITS.detailsMax ? `; the first ${ERROR_LIMITS.detailsMax} are listed` : '';
  return `Invalid ${type} frame: ${clip(where, 200)}: ${clip(first.message, 200)}${more}${listed}`;
}

/**
 * Parse and validate one client frame. Never throws: whatever the input, the result is the
 * message or an `error` frame (`BAD_JSON`, `UNKNOWN_TYPE`, or `BAD_FRAME` with one detail per issue,
 * at most `ERROR_LIMITS.detailsMax`) that carries `requestId` whenever the frame had a usable `id`.
 * A string with a lone surrogate anywhere in the frame is `BAD_FRAME`: text is stored exactly or refused.
 */
export function parseClientMessage(raw: string | ArrayBuffer | Uint8Array): ParseResult {
  try {
    const text = decode(raw);
    if (text === null) return { ok: false, error: errorFrame(ERROR_CODES.BAD_JSON, 'Frame is not valid UTF-8 text.') };
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return { ok: false, error: errorFrame(ERROR_CODES.BAD_JSON, 'Frame is not valid JSON. Send one JSON object per text frame.') };
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      const details = [{ path: [], message: 'Expected a JSON object with a "type" field' }];
      return { ok: false, error: errorFrame(ERROR_CODES.BAD_FRAME, 'A frame must be a JSON object with a "type" field.', undefined, details) };
    }
    const record = data as Record<string, unknown>;
    const requestId = usableRequestId(Object.hasOwn(record, 'id') ? record.id : undefined);
    const type = Object.hasOwn(record, 'type') ? record.type : undefined;
    if (typeof type !== 'string') {
      const details = [{ path: ['type'], message: 'Expected a string naming the request, e.g. "session.create"' }];
      return { ok: false, error: errorFrame(ERROR_CODES.BAD_FRAME, 'The frame has no "type" string.', requestId, details) };
    }
    if (mayHoldLoneSurrogate(text)) {
      const path = findIllFormedText(record);
      if (path !== undefined) {
        const details = [{ path, message: 'Text must be well-formed Unicode: this string has a lone UTF-16 surrogate' }];
        const where = path.length ? path.join('.') : '(frame)';
        const message = `Text must be well-formed Unicode: ${where} has a lone UTF-16 surrogate (an unpaired \\uD800–\\uDFFF), which cannot be stored exactly.`;
        return { ok: false, error: errorFrame(ERROR_CODES.BAD_FRAME, message, requestId, details) };
      }
    }
    if (!clientTypes.has(type)) {
      const shown = type.length > 64 ? `${type.slice(0, 64)}…` : type;
      const message = `Unknown request type "${shown}". Known types: ${CLIENT_MESSAGE_TYPES.join(', ')}.`;
      return { ok: false, error: errorFrame(ERROR_CODES.UNKNOWN_TYPE, message, requestId) };
    }
    const parsed = ClientMessageSchema.safeParse(record);
    if (parsed.success) return { ok: true, message: parsed.data };
    const details = issuesToDetails(parsed.error.issues);
    return { ok: false, error: errorFrame(ERROR_CODES.BAD_FRAME, describeIssues(type, details), requestId, details) };
  } catch {
    // Defensive: nothing above should throw, but a parser must never take the connection down.
    return { ok: false, error: errorFrame(ERROR_CODES.BAD_FRAME, 'The frame could not be read.') };
  }
}
