import type { ControlFrame } from './frame-reader.js';
import { readFrameSeq } from './frame-reader.js';

const FROM_SEQ_KEY = Buffer.from('"fromSeq":');
const ZERO = 0x30;
const NINE = 0x39;

/** The first seq a delta frame covers: its `fromSeq` when the server coalesced several, else its `seq`. */
function firstSeqOfDelta(frame: Buffer, seq: number): number {
  const at = frame.indexOf(FROM_SEQ_KEY);
  if (at < 0) return seq;
  let value = 0;
  let end = at + FROM_SEQ_KEY.length;
  for (; end < frame.length; end++) {
    const byte = frame[end] ?? 0;
    if (byte < ZERO || byte > NINE) break;
    value = value * 10 + (byte - ZERO);
  }
  return end === at + FROM_SEQ_KEY.length ? seq : value;
}

/** What the seq checks found over a run, summed over subscribers. */
export interface SeqCheck {
  /** Events received (a coalesced delta counts every seq it covers). */
  events: number;
  /** Seqs never received: the sum of every gap between one event and the next. */
  lost: number;
  /** Events whose seq a subscriber had received already. */
  duplicated: number;
  /** Subscribers that did not see their session's end before the run stopped waiting (or whose connection the server closed). */
  unfinished: number;
  /** The first few faults, to find them in the log: `after` is the cursor, `got` the seqs that came next. */
  samples: SeqFault[];
}

/** One gap or repeat: after seq `after`, the subscriber got `first`…`last`. */
export interface SeqFault {
  kind: 'gap' | 'duplicate';
  after: number;
  first: number;
  last: number;
}

/** Faults kept per subscriber and per check: enough to locate them, never a flood. */
const SAMPLES = 5;

export function emptySeqCheck(): SeqCheck {
  return { events: 0, lost: 0, duplicated: 0, unfinished: 0, samples: [] };
}

/**
 * One subscriber's view of one session's seqs, from `afterSeq` on: every event must carry the
 * next seq (a coalesced delta's `fromSeq` counts as its first), so a gap is a lost event and a
 * seq at or below the cursor a duplicate. It also notes when the awaited final status arrives,
 * which ends the check: with it, the subscriber has seen the whole session.
 */
export class SeqTracker {
  cursor: number;
  events = 0;
  lost = 0;
  duplicated = 0;
  readonly samples: SeqFault[] = [];
  /** When the final status arrived (µs on the shared clock), once it did. */
  endedAt: number | undefined;
  #onEnd: (() => void) | undefined;

  constructor(
    afterSeq: number,
    /** The statuses that end the session for this run (`cancelled`, `completed` …, or `interrupted` when its owner is killed). */
    private readonly endStatuses: ReadonlySet<string>,
    private readonly now: () => number,
  ) {
    this.cursor = afterSeq;
  }

  /** A `step.delta` frame (raw bytes: the hot path reads its seqs without parsing it). */
  delta(frame: Buffer): void {
    const seq = readFrameSeq(frame);
    if (seq !== undefined) this.#event(firstSeqOfDelta(frame, seq), seq);
  }

  /** Any other frame: events carry a `seq` (answers such as `session.subscribed` do not). */
  control(frame: ControlFrame): void {
    if (typeof frame.seq !== 'number' || frame.type === 'session.snapshot') return;
    this.#event(frame.seq, frame.seq);
    if (frame.type === 'session.status' && typeof frame.status === 'string' && this.endStatuses.has(frame.status) && this.endedAt === undefined) {
      this.endedAt = this.now();
      this.#onEnd?.();
    }
  }

  /** Resolves when the final status arrived, or after `timeoutMs` (then `endedAt` stays undefined). */
  ended(timeoutMs: number): Promise<void> {
    if (this.endedAt !== undefined) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.#onEnd = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  #event(first: number, last: number): void {
    if (last <= this.cursor) {
      this.duplicated += 1;
      this.#sample('duplicate', first, last);
      return;
    }
    if (first <= this.cursor) {
      this.duplicated += 1;
      this.#sample('duplicate', first, last);
    } else if (first > this.cursor + 1) {
      this.lost += first - this.cursor - 1;
      this.#sample('gap', first, last);
    }
    this.events += last - Math.max(first, this.cursor + 1) + 1;
    this.cursor = last;
  }

  #sample(kind: SeqFault['kind'], first: number, last: number): void {
    if (this.samples.length < SAMPLES) this.samples.push({ kind, after: this.cursor, first, last });
  }
}

/** Sum the checks of many subscribers. */
export function sumSeqChecks(trackers: readonly SeqTracker[], unfinished: (tracker: SeqTracker) => boolean): SeqCheck {
  const check = emptySeqCheck();
  for (const tracker of trackers) {
    check.events += tracker.events;
    check.lost += tracker.lost;
    check.duplicated += tracker.duplicated;
    if (unfinished(tracker)) check.unfinished += 1;
    for (const sample of tracker.samples) if (check.samples.length < SAMPLES) check.samples.push(sample);
  }
  return check;
}
