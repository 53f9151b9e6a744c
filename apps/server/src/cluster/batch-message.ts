/**
 * The pub/sub message of one appended batch: a header line with the batch's first seq, then its
 * frames, one a line. The append script builds it with one `table.concat` (no JSON re-encoding in
 * Lua), and a frame is `JSON.stringify` output, which never holds a raw line feed (the store
 * refuses one that does), so lines split it back exactly.
 */
export interface BatchMessage {
  /** The seq of `frames[0]`; the others follow one by one. */
  firstSeq: number;
  frames: string[];
}

export function encodeBatchMessage(firstSeq: number, frames: readonly string[]): string {
  return `${firstSeq}\n${frames.join('\n')}`;
}

/** Undefined when `message` is not a batch message (it came from something else on the channel). */
export function decodeBatchMessage(message: string): BatchMessage | undefined {
  const headerEnd = message.indexOf('\n');
  if (headerEnd <= 0) return undefined;
  const firstSeq = Number(message.slice(0, headerEnd));
  if (!Number.isSafeInteger(firstSeq) || firstSeq < 1) return undefined;
  return { firstSeq, frames: message.slice(headerEnd + 1).split('\n') };
}

/** A frame the message format can carry. */
export function isSingleLine(frame: string): boolean {
  return !frame.includes('\n');
}
