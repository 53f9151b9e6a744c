import { ChaosSocket, type KillKind } from './chaos-socket.js';
import type { SessionLedger } from './session-ledger.js';
import type { ChaosTally } from './tally.js';
import { FINAL_STATUSES, firstSeqOf, isSessionEvent, type WireFrame } from './wire-frame.js';

/** How one connection of a follower ended. */
export type ConnectionEnd =
  | { kind: 'finished' }
  | { kind: 'killed' }
  /** The server ended it: 4008 for a reader that fell behind, 1006 when the server process died. */
  | { kind: 'closed'; code: number }
  | { kind: 'unreachable'; error: string };

/** What one connection of a follower does to itself. */
export interface ConnectionPlan {
  /** Die after this many events of this connection (0: right after sending the subscribe). */
  killAfterEvents?: number;
  killKind?: KillKind;
  /** Stop reading for `stallMs` after this many events, so the server's buffers fill (coalescing, 4008). */
  stallAfterEvents?: number;
  stallMs?: number;
}

/**
 * A client following one session across connections, the way a real client resumes: it keeps
 * the last seq it saw and subscribes with `afterSeq` = that seq on every new connection. Each
 * event must continue that cursor exactly (a coalesced delta's `fromSeq` counts as its first
 * seq); every event goes into the session's ledger for the content check against the log.
 */
export class StreamFollower {
  /** The last seq seen: every next event must start at cursor + 1. */
  cursor = 0;
  /** The final status (`completed`, `failed`, `cancelled`) once seen. */
  finalStatus: string | undefined;
  /** The last status event seen (running, interrupted …). */
  lastStatus: string | undefined;
  connections = 0;

  constructor(
    readonly sessionId: string,
    private readonly ledger: SessionLedger,
    private readonly tally: ChaosTally,
    private readonly phase: string,
  ) {}

  get finished(): boolean {
    return this.finalStatus !== undefined;
  }

  /** Open one connection, subscribe from the cursor and follow until the session ends, the plan kills it, or the server closes it. */
  async follow(url: string, plan: ConnectionPlan = {}): Promise<ConnectionEnd> {
    let socket: ChaosSocket;
    try {
      socket = await ChaosSocket.connect(url);
    } catch (error) {
      return { kind: 'unreachable', error: error instanceof Error ? error.message : String(error) };
    }
    this.connections += 1;
    if (this.cursor > 0) this.tally.resumes += 1;
    return new Promise<ConnectionEnd>((resolve) => {
      let events = 0;
      let settled = false;
      const end = (outcome: ConnectionEnd) => {
        if (settled) return;
        settled = true;
        socket.onFrame = undefined;
        socket.onClose = undefined;
        resolve(outcome);
      };
      const kill = () => {
        end({ kind: 'killed' });
        socket.kill(plan.killKind ?? 'destroy');
      };
      socket.onClose = (code) => end({ kind: 'closed', code });
      socket.onFrame = (raw, frame) => {
        if (settled) return;
        if (frame === undefined) {
          this.tally.violation(this.phase, `session ${this.sessionId}: a frame that is not a JSON object with a type: ${raw.slice(0, 120)}`);
          return;
        }
        if (!this.#take(raw, frame)) return;
        events += 1;
        if (this.finished) {
          end({ kind: 'finished' });
          socket.close();
          return;
        }
        if (events === plan.stallAfterEvents) {
          socket.ws.pause();
          setTimeout(() => socket.ws.resume(), plan.stallMs ?? 0).unref();
        }
        if (plan.killAfterEvents !== undefined && events >= plan.killAfterEvents) kill();
      };
      socket.send({ type: 'session.subscribe', id: `f${this.connections}`, sessionId: this.sessionId, afterSeq: this.cursor });
      if (plan.killAfterEvents === 0) kill();
    });
  }

  /** Check one frame against the cursor; true when it was an event of this session. */
  #take(raw: string, frame: WireFrame): boolean {
    if (frame.type === 'error') {
      this.tally.violation(this.phase, `session ${this.sessionId}: a follower got an error: ${frame.code}: ${frame.message}`);
      return false;
    }
    if (frame.sessionId !== this.sessionId) return false;
    if (frame.type === 'session.subscribed') {
      if (frame.afterSeq !== this.cursor || (frame.lastSeq ?? -1) < this.cursor) {
        this.tally.violation(this.phase, `session ${this.sessionId}: subscribed from ${this.cursor} but the answer says afterSeq ${frame.afterSeq}, lastSeq ${frame.lastSeq}: events the client saw are gone.`);
      }
      return false;
    }
    if (frame.type === 'session.snapshot') {
      this.tally.violation(this.phase, `session ${this.sessionId}: a snapshot instead of the replay from afterSeq ${this.cursor} (every event is retained).`);
      return false;
    }
    if (!isSessionEvent(frame)) return false;
    const first = firstSeqOf(frame);
    if (first !== this.cursor + 1 || frame.seq < first) {
      const what = first > this.cursor + 1 ? `lost ${this.cursor + 1}…${first - 1}` : 'duplicated or out of order';
      this.tally.violation(this.phase, `session ${this.sessionId}: after seq ${this.cursor} came ${first === frame.seq ? `seq ${frame.seq}` : `seqs ${first}…${frame.seq}`} (${what}).`);
    }
    this.tally.eventsChecked += Math.max(1, frame.seq - first + 1);
    if (first !== frame.seq) this.tally.coalescedFrames += 1;
    this.ledger.saw(raw, frame.seq, first);
    this.cursor = Math.max(this.cursor, frame.seq);
    if (frame.type === 'session.status' && frame.status !== undefined) {
      this.lastStatus = frame.status;
      if (FINAL_STATUSES.has(frame.status)) this.finalStatus = frame.status;
    }
    return true;
  }
}
