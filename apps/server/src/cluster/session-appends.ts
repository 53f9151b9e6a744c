import type { SessionInfo } from '@interthought/protocol';
import type { AppendBatch } from '../core/persistence/event-store.js';
import { EventStoreError } from '../core/persistence/event-store.js';
import { isSingleLine } from './batch-message.js';

/** The part of a batch that belongs to one session: one append script call. */
export interface SessionAppend {
  sessionId: string;
  /** The seq of `frames[0]`; 0 when the session has only a summary in the batch. */
  firstSeq: number;
  frames: string[];
  /** The newest summary of the session in the batch. */
  summary: SessionInfo | undefined;
}

/**
 * Split a batch per session, in order, checking what can be checked without Redis: each event has
 * a session and an integer seq, a session's seqs in the batch follow one by one, and each frame
 * fits the pub/sub message (one line). Throws `EventStoreError` before anything is written.
 */
export function splitBySession(batch: AppendBatch): Map<string, SessionAppend> {
  const appends = new Map<string, SessionAppend>();
  const appendOf = (sessionId: string): SessionAppend => {
    let append = appends.get(sessionId);
    if (append === undefined) {
      append = { sessionId, firstSeq: 0, frames: [], summary: undefined };
      appends.set(sessionId, append);
    }
    return append;
  };
  for (const [index, event] of batch.events.entries()) {
    if (typeof event?.sessionId !== 'string' || !Number.isSafeInteger(event.seq) || event.seq < 1 || typeof event.type !== 'string') {
      throw new EventStoreError('BAD_EVENT', 'Every event needs a string sessionId and type and a positive integer seq; the batch was not written.');
    }
    const append = appendOf(event.sessionId);
    if (append.frames.length === 0) append.firstSeq = event.seq;
    else if (event.seq !== append.firstSeq + append.frames.length) {
      throw new EventStoreError(
        'SEQ_NOT_CONTIGUOUS',
        `Session ${event.sessionId}: event seq ${event.seq} does not follow seq ${append.firstSeq + append.frames.length - 1} in the batch; the batch was not written.`,
      );
    }
    const frame = batch.frames[index] ?? JSON.stringify(event);
    if (!isSingleLine(frame)) {
      throw new EventStoreError('BAD_EVENT', `Event ${event.seq} of session ${event.sessionId} has a frame with a raw line feed; frames are JSON.stringify output. The batch was not written.`);
    }
    append.frames.push(frame);
  }
  for (const summary of batch.summaries ?? []) appendOf(summary.sessionId).summary = summary;
  return appends;
}
