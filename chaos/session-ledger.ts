import type { ChaosTally } from './tally.js';
import { canonicalEvent, readFrame } from './wire-frame.js';

/** A coalesced delta as a client saw it: one frame standing for events `fromSeq` … `seq` of one step. */
interface CoalescedSighting {
  fromSeq: number;
  seq: number;
  raw: string;
}

/** The durable log of a session: its events by seq, as the server replays them from the store. */
export type DurableLog = ReadonlyMap<number, string>;

function sameEvent(a: string, b: string): boolean {
  return a === b || canonicalEvent(a) === canonicalEvent(b);
}

/**
 * What every client saw of one session, one copy per seq: a later sighting of the same seq must
 * carry the same event, and at the end every sighting must be in the durable log unchanged.
 */
export class SessionLedger {
  readonly #seen = new Map<number, string>();
  readonly #coalesced: CoalescedSighting[] = [];

  constructor(
    readonly sessionId: string,
    private readonly tally: ChaosTally,
    private readonly phase: string,
  ) {}

  /** The highest seq any client saw. */
  get highestSeen(): number {
    let highest = 0;
    for (const seq of this.#seen.keys()) highest = Math.max(highest, seq);
    for (const sighting of this.#coalesced) highest = Math.max(highest, sighting.seq);
    return highest;
  }

  /** A client received `raw`, the event at `seq` (or, coalesced, the events `fromSeq` … `seq`). */
  saw(raw: string, seq: number, fromSeq = seq): void {
    if (fromSeq !== seq) {
      this.#coalesced.push({ fromSeq, seq, raw });
      return;
    }
    const earlier = this.#seen.get(seq);
    if (earlier === undefined) this.#seen.set(seq, raw);
    else if (!sameEvent(earlier, raw)) {
      this.tally.violation(this.phase, `session ${this.sessionId} seq ${seq}: two clients got different events:\n    ${earlier.slice(0, 200)}\n    ${raw.slice(0, 200)}`);
    }
  }

  /** Every sighting must be in the log with the same content. Returns how many events were compared. */
  verifyAgainst(log: DurableLog): number {
    let compared = 0;
    for (const [seq, raw] of this.#seen) {
      compared += 1;
      const stored = log.get(seq);
      if (stored === undefined) this.tally.violation(this.phase, `session ${this.sessionId}: seq ${seq} was sent to a client but is not in the log (log ends at ${log.size}).`);
      else if (!sameEvent(stored, raw)) {
        this.tally.violation(this.phase, `session ${this.sessionId} seq ${seq}: a client got\n    ${raw.slice(0, 200)}\n  but the log holds\n    ${stored.slice(0, 200)}`);
      }
    }
    for (const sighting of this.#coalesced) {
      compared += sighting.seq - sighting.fromSeq + 1;
      this.#verifyCoalesced(sighting, log);
    }
    return compared;
  }

  /** A coalesced delta must be the log's deltas of one step joined: same text, the last one's other fields. */
  #verifyCoalesced(sighting: CoalescedSighting, log: DurableLog): void {
    const where = `session ${this.sessionId} coalesced delta ${sighting.fromSeq}…${sighting.seq}`;
    const frame = readFrame(sighting.raw);
    let text = '';
    for (let seq = sighting.fromSeq; seq <= sighting.seq; seq++) {
      const stored = log.get(seq);
      const event = stored === undefined ? undefined : readFrame(stored);
      if (stored === undefined || event === undefined) {
        this.tally.violation(this.phase, `${where}: seq ${seq} is not in the log.`);
        return;
      }
      if (event.type !== 'step.delta' || event.stepId !== frame?.stepId) {
        this.tally.violation(this.phase, `${where}: seq ${seq} in the log is ${event.type} of step ${String(event.stepId)}, not a delta of step ${String(frame?.stepId)}.`);
        return;
      }
      text += event.text ?? '';
    }
    if (frame?.text !== text) {
      this.tally.violation(this.phase, `${where}: its text differs from the log's deltas joined.`);
      return;
    }
    const last = log.get(sighting.seq) ?? '';
    if (canonicalEvent(sighting.raw, ['requestId', 'fromSeq', 'text']) !== canonicalEvent(last, ['requestId', 'text'])) {
      this.tally.violation(this.phase, `${where}: its fields differ from the log's event ${sighting.seq}.`);
    }
  }
}

/** One ledger per session, made on first use. */
export class Ledgers {
  readonly #bySession = new Map<string, SessionLedger>();

  constructor(
    private readonly tally: ChaosTally,
    private readonly phase: string,
  ) {}

  of(sessionId: string): SessionLedger {
    let ledger = this.#bySession.get(sessionId);
    if (ledger === undefined) {
      ledger = new SessionLedger(sessionId, this.tally, this.phase);
      this.#bySession.set(sessionId, ledger);
    }
    return ledger;
  }
}
