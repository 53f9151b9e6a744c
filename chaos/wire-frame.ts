/**
 * The few facts of a server frame the chaos run checks, read from the raw JSON. Kept apart from
 * `@interthought/protocol` on purpose: the run judges the bytes the server sent, not what a
 * client library makes of them.
 */
export interface WireFrame {
  type: string;
  sessionId?: string;
  requestId?: string;
  /** Session events only. */
  seq?: number;
  /** A coalesced `step.delta`: the frame stands for events `fromSeq` … `seq`. */
  fromSeq?: number;
  status?: string;
  stepId?: string;
  text?: string;
  code?: string;
  message?: string;
  lastSeq?: number;
  afterSeq?: number;
  session?: { sessionId?: string; status?: string };
}

/** Statuses after which a session streams nothing more. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** Parse a frame; undefined when it is not a JSON object with a string `type` (itself a finding). */
export function readFrame(raw: string): WireFrame | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    return typeof (value as { type?: unknown }).type === 'string' ? (value as WireFrame) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the frame is a session event (it carries a `seq`), as opposed to an answer or `hello`. */
export function isSessionEvent(frame: WireFrame): frame is WireFrame & { seq: number; sessionId: string } {
  return typeof frame.seq === 'number' && typeof frame.sessionId === 'string' && frame.type !== 'session.snapshot';
}

/** The first seq a frame stands for: a coalesced delta's `fromSeq`, otherwise its `seq`. */
export function firstSeqOf(frame: WireFrame & { seq: number }): number {
  return frame.type === 'step.delta' && typeof frame.fromSeq === 'number' ? frame.fromSeq : frame.seq;
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedKeys((value as Record<string, unknown>)[key]);
  return out;
}

/**
 * An event as content, whatever copy carried it: without `requestId` (the requester's copy of a
 * status change carries it, the stored one does not) and with keys in one order.
 */
export function canonicalEvent(raw: string, drop: readonly string[] = ['requestId']): string {
  const value = JSON.parse(raw) as Record<string, unknown>;
  for (const key of drop) delete value[key];
  return JSON.stringify(sortedKeys(value));
}
