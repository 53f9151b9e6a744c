/**
 * The load generator's hot path: tell a `step.delta` frame from the rest and read its stamp
 * straight from the received bytes, without decoding or JSON-parsing tens of thousands of
 * frames per second. Control frames (a few per run) are parsed normally.
 */

const DELTA_TYPE = Buffer.from('"type":"step.delta"');
const STAMP_MARK = Buffer.from('@T');
const INDEX_MARK = 0x23; // '#'
const ZERO = 0x30;
const NINE = 0x39;

/** Whether the frame is a `step.delta` (its `type` comes first in both servers' frames, so this stops early). */
export function isDeltaFrame(frame: Buffer): boolean {
  return frame.indexOf(DELTA_TYPE) >= 0;
}

function digitsAt(frame: Buffer, from: number): { value: number; end: number } | undefined {
  let value = 0;
  let end = from;
  for (; end < frame.length; end++) {
    const byte = frame[end] ?? 0;
    if (byte < ZERO || byte > NINE) break;
    value = value * 10 + (byte - ZERO);
  }
  return end === from ? undefined : { value, end };
}

/**
 * Visit every firehose stamp of a delta frame (see apps/server/src/agents/firehose/firehose-text.ts)
 * in order: one for a plain delta, several for a delta the server coalesced for a slow reader
 * (its text is the merged deltas' texts joined). Returns how many there were.
 */
export function forEachStamp(frame: Buffer, visit: (micros: number, index: number) => void): number {
  let found = 0;
  let at = frame.indexOf(STAMP_MARK);
  while (at >= 0) {
    const micros = digitsAt(frame, at + STAMP_MARK.length);
    const index = micros && frame[micros.end] === INDEX_MARK ? digitsAt(frame, micros.end + 1) : undefined;
    if (micros && index) {
      visit(micros.value, index.value);
      found++;
    }
    at = frame.indexOf(STAMP_MARK, at + STAMP_MARK.length);
  }
  return found;
}

const SEQ_KEY = Buffer.from('"seq":');

/** The `seq` of an event frame (for a coalesced delta, the last merged seq), without parsing the JSON. */
export function readFrameSeq(frame: Buffer): number | undefined {
  const at = frame.indexOf(SEQ_KEY);
  return at < 0 ? undefined : digitsAt(frame, at + SEQ_KEY.length)?.value;
}

/** A parsed control frame: only the fields the load generator looks at. */
export interface ControlFrame {
  type: string;
  requestId?: string;
  code?: string;
  message?: string;
  sessionId?: string;
  seq?: number;
  stepId?: string;
  status?: string;
  session?: { sessionId: string };
  step?: { stepId: string; kind: string };
  lastSeq?: number;
  newStepId?: string;
  [key: string]: unknown;
}

/** Parse a non-delta frame; undefined for anything that is not a JSON object with a `type`. */
export function parseControlFrame(frame: Buffer): ControlFrame | undefined {
  try {
    const value = JSON.parse(frame.toString('utf8')) as unknown;
    if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') return undefined;
    return value as ControlFrame;
  } catch {
    return undefined;
  }
}
