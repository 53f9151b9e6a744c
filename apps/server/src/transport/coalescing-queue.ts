import type { StepDeltaEvent } from '@interthought/protocol';
import { frameOf, type Frame } from '../core/fanout/frame.js';

/** Consecutive deltas of one step merged into one entry; serialised only when it is sent. */
interface DeltaRun {
  readonly fromSeq: number;
  /** The last delta merged in: the coalesced frame is it, with the joined text and `fromSeq`. */
  last: StepDeltaEvent;
  text: string;
  count: number;
}

interface QueuedFrame {
  /** The frame as the core made it (its text sent as is unless deltas were merged into it). */
  readonly frame: Frame;
  /** What the entry will weigh on the wire, for the hard cap (UTF-8 bytes; merged text counted as it grows). */
  bytes: number;
  readonly sessionId: string | undefined;
  readonly run: DeltaRun | undefined;
}

/** The queue is compacted once this many sent entries sit at its front (and they are over half of it). */
const COMPACT_AFTER = 1_024;

/**
 * The frames a slow connection has not been able to take yet, in order. A `step.delta` that
 * continues the session's last queued delta (same step, the next seq) is merged into it instead of
 * queued: the entry goes out as ONE delta whose `text` is the texts joined, whose `seq` is the last
 * merged seq and whose `fromSeq` is the first. Nothing is ever reordered within a session, and
 * nothing merges across a frame without an event (an answer, a snapshot, a replayed event), since
 * such a frame may concern any session.
 */
export class CoalescingQueue {
  #entries: (QueuedFrame | undefined)[] = [];
  #head = 0;
  #bytes = 0;
  /** Per session, its last queued entry when that is a delta run later deltas may merge into. */
  readonly #openRuns = new Map<string, QueuedFrame>();

  get isEmpty(): boolean {
    return this.#head === this.#entries.length;
  }

  /** Entries waiting (a merged run counts once). */
  get length(): number {
    return this.#entries.length - this.#head;
  }

  /** Bytes waiting: what the connection's hard cap counts on top of the socket's own buffer. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Queue a frame; a live one is read as its session event (see `Peer.send`), any other is opaque. */
  push(frame: Frame): void {
    const event = frame.event;
    if (event?.type === 'step.delta' && this.#mergeInto(event)) return;
    const entry: QueuedFrame = {
      frame,
      bytes: Buffer.byteLength(frame.text),
      sessionId: event?.sessionId,
      run: event?.type === 'step.delta' ? { fromSeq: event.seq, last: event, text: event.text, count: 1 } : undefined,
    };
    if (event === undefined) this.#openRuns.clear();
    else if (entry.run) this.#openRuns.set(event.sessionId, entry);
    else this.#openRuns.delete(event.sessionId);
    this.#entries.push(entry);
    this.#bytes += entry.bytes;
  }

  /** Take the next frame's text to send, serialising a merged run now. */
  shift(): string | undefined {
    if (this.isEmpty) return undefined;
    const entry = this.#entries[this.#head]!;
    this.#entries[this.#head] = undefined;
    this.#head += 1;
    this.#bytes -= entry.bytes;
    if (entry.sessionId !== undefined && this.#openRuns.get(entry.sessionId) === entry) this.#openRuns.delete(entry.sessionId);
    this.#compact();
    const run = entry.run;
    if (!run || run.count === 1) return entry.frame.text;
    const coalesced: StepDeltaEvent = { ...run.last, text: run.text, fromSeq: run.fromSeq };
    return frameOf(coalesced).text;
  }

  /** Drop everything (the connection is closing). */
  clear(): void {
    this.#entries = [];
    this.#head = 0;
    this.#bytes = 0;
    this.#openRuns.clear();
  }

  /** Append the delta to its session's open run when it continues it; false when it starts a new entry. */
  #mergeInto(delta: StepDeltaEvent): boolean {
    const entry = this.#openRuns.get(delta.sessionId);
    const run = entry?.run;
    if (!entry || !run || run.last.stepId !== delta.stepId || delta.seq !== run.last.seq + 1) return false;
    run.text += delta.text;
    run.last = delta;
    run.count += 1;
    const added = Buffer.byteLength(delta.text);
    entry.bytes += added;
    this.#bytes += added;
    return true;
  }

  #compact(): void {
    if (this.isEmpty) {
      this.#entries = [];
      this.#head = 0;
    } else if (this.#head >= COMPACT_AFTER && this.#head * 2 >= this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
  }
}
