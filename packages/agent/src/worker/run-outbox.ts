import type { WorkerMessage } from '@interthought/protocol';

interface Queued {
  frame: WorkerMessage;
  resolve?: () => void;
  reject?: (reason: unknown) => void;
}

/**
 * The frames of one run on their way to the server, in order. While the server says
 * `flow { paused: true }` (PROTOCOL.md Part II §A7) they wait here, and so does every writer
 * awaiting one: that is how a worker's `StepWriter.write` and `backpressure()` honour the
 * server's pacing, pause and outbox, as an in-process agent's do.
 *
 * A `flow` frame can only be read between event-loop turns, so at most `turnBudget` frames go out
 * in one turn; then the outbox waits for the next turn (the server's `flow` is read meanwhile).
 * With the budget at the server's mark (an eighth of `maxQueuedFramesPerRun`), an agent that
 * writes without pause never runs past the queue the server holds for it.
 */
export class RunOutbox {
  readonly #send: (frame: WorkerMessage) => void;
  readonly #turnBudget: number;
  #sentThisTurn = 0;
  #yielding = false;
  readonly #queue: Queued[] = [];
  readonly #drainWaiters: Array<{ resolve: () => void; reject: (reason: unknown) => void }> = [];
  #paused = false;
  #closed: { reason: unknown } | undefined;

  readonly #room: () => boolean;

  /** `room` says whether the connection may send more now (its `SendWindow`); `resume()` once it may again. */
  constructor(send: (frame: WorkerMessage) => void, turnBudget: number, room: () => boolean = () => true) {
    this.#send = send;
    this.#turnBudget = Math.max(1, turnBudget);
    this.#room = room;
  }

  /** Frames are waiting, the server asked this run to wait, this turn's budget is spent, or the connection has too many frames unread. */
  get blocked(): boolean {
    return this.#paused || this.#yielding || this.#queue.length > 0 || !this.#room();
  }

  /** Send `frame` now, or after the frames before it once the run may send again. */
  push(frame: WorkerMessage): void {
    if (this.#closed !== undefined) return;
    if (!this.blocked) this.#sendNow(frame);
    else this.#queue.push({ frame });
  }

  /** As `push`; settles once the frame is sent (rejects if the run ends first). */
  pushAwaited(frame: WorkerMessage): Promise<void> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed.reason);
    if (!this.blocked) {
      this.#sendNow(frame);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => this.#queue.push({ frame, resolve, reject }));
  }

  /** Resolves once nothing waits and the run may send. */
  drained(): Promise<void> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed.reason);
    if (!this.blocked) return Promise.resolve();
    return new Promise((resolve, reject) => this.#drainWaiters.push({ resolve, reject }));
  }

  /** The connection has room again: send what waits. */
  resume(): void {
    this.#flush();
  }

  /** `flow` from the server. */
  setPaused(paused: boolean): void {
    this.#paused = paused;
    if (!paused) this.#flush();
  }

  /** The run is over (aborted, or its connection went away): what waits is dropped and its writers reject. */
  close(reason: unknown): void {
    if (this.#closed !== undefined) return;
    this.#closed = { reason };
    for (const queued of this.#queue.splice(0)) queued.reject?.(reason);
    for (const waiter of this.#drainWaiters.splice(0)) waiter.reject(reason);
  }

  #sendNow(frame: WorkerMessage): void {
    this.#send(frame);
    this.#sentThisTurn += 1;
    if (this.#sentThisTurn === 1) setImmediate(() => this.#nextTurn());
    if (this.#sentThisTurn >= this.#turnBudget) this.#yielding = true;
  }

  #nextTurn(): void {
    this.#sentThisTurn = 0;
    this.#yielding = false;
    this.#flush();
  }

  #flush(): void {
    while (!this.#paused && !this.#yielding && this.#queue.length > 0 && this.#closed === undefined && this.#room()) {
      const queued = this.#queue.shift()!;
      this.#sendNow(queued.frame);
      queued.resolve?.();
    }
    if (!this.blocked) for (const waiter of this.#drainWaiters.splice(0)) waiter.resolve();
  }
}
