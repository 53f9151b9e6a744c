import type { SessionEvent } from '@interthought/protocol';
import { CommitWindow, type CommitSpan } from './commit-window.js';
import type { EventStore } from './event-store.js';
import type { Peer, ReplyTo } from './session-service.js';

/**
 * Where an event goes after it is written: the session's subscribers, each with the last seq
 * it already got from a snapshot or replay (it only gets live events after that).
 */
export interface OutboxTarget {
  readonly subscribers: ReadonlyMap<Peer, number>;
}

/** Counters and the commit window's state, for metrics. */
export interface OutboxStats {
  eventsWritten: number;
  /** Successful `appendBatch` calls. */
  transactions: number;
  span: CommitSpan;
  /** Mean write time of a small batch, in ms. */
  transactionCostMs: number;
}

/** One queued event, and the requester of the change it records (for status changes). */
export interface OutboxEntry<T extends OutboxTarget = OutboxTarget> {
  target: T;
  event: SessionEvent;
  reply?: ReplyTo;
  /** `event` serialised, once, for the store and every subscriber (set when the batch is written). */
  frame?: string;
}

export interface OutboxOptions<T extends OutboxTarget> {
  store: EventStore;
  /** Called after each batch is written, before it is sent (e.g. to persist session summaries). */
  onWritten?: (targets: ReadonlySet<T>) => void;
  /** Where write failures and misbehaving peers are reported; the outbox itself never throws from a tick. */
  reportError: (context: string, error: unknown) => void;
  /** Chooses per-run or per-turn commits from what transactions cost (one per outbox by default: it measures this outbox's store). */
  commitWindow?: CommitWindow;
  /** The clock transactions are timed with, in ms. */
  now?: () => number;
  /** First retry delay after a failed write, doubled up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
}

/**
 * Once this many events are queued, they are committed as soon as the code queuing them returns
 * (a microtask) even when the window spans the turn. Group commit pays off long before this size,
 * and a bigger batch only makes every event in it wait for the fan-out of all the others: at
 * saturation, ten firehose sessions' bursts of 512 deltas shared one batch and each delta waited
 * ~140 ms (p50) between its emit and its send; committed burst by burst, ~14 ms. A microtask
 * never splits a synchronous run, so a correction's events still share one batch.
 */
export const EARLY_COMMIT_EVENTS = 256;

/**
 * Deliveries (events × their subscribers) queued before producers are asked to wait. An event's
 * latency is the fan-out of everything queued before it: at saturation a firehose tick of 512
 * deltas to 25 subscribers made each delta wait ~30 ms (p50) for 12,800 sends; with the
 * producer held at this mark until what it queued is out, a delta waits for about 1,000.
 */
export const BACKLOG_MARK_DELIVERIES = 1_024;

/** What producers watch to be slowed: the events queued and not yet written and sent. */
export interface Backlog {
  /** True while more is queued than the outbox wants: a producer should await `drained()`. */
  readonly backlogged: boolean;
  /** Resolves once everything queued now has been written and sent (or the outbox closed). */
  drained(): Promise<void>;
}

/**
 * Group commit and fan-out. The events a synchronous run queues are written with ONE
 * `store.appendBatch` when it returns (a microtask), or, while transactions are dear (see
 * `CommitWindow`), together with every other run's of the turn on the next `setImmediate`;
 * then each is serialised once and the same string goes to every subscriber of its session.
 * Nothing is sent before it is written: a failed write keeps the batch queued and retries with
 * backoff.
 */
export class Outbox<T extends OutboxTarget = OutboxTarget> implements Backlog {
  readonly #store: EventStore;
  readonly #options: OutboxOptions<T>;
  readonly #window: CommitWindow;
  readonly #now: () => number;
  #queue: OutboxEntry<T>[] = [];
  /** Written events being sent; a flush re-entered from a peer's `send` adds to it, in order. */
  #sendQueue: OutboxEntry<T>[] = [];
  #sending = false;
  #immediate: NodeJS.Immediate | undefined;
  /** A microtask is due at the end of the current synchronous run: the run is counted, and committed unless the turn is. */
  #runEndDue = false;
  /** How the current run is committed: at its end, or with the turn (see `CommitWindow.noteRun`). */
  #runSpan: CommitSpan = 'run';
  #retryTimer: NodeJS.Timeout | undefined;
  #retryDelayMs: number;
  #closed = false;
  #eventsWritten = 0;
  #transactions = 0;
  /** Deliveries the queued events will cost (each counts its subscribers, at least one). */
  #queuedDeliveries = 0;
  /** Settled by the next flush that writes and sends the queue (created only when someone waits). */
  #drained: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(options: OutboxOptions<T>) {
    this.#store = options.store;
    this.#options = options;
    this.#window = options.commitWindow ?? new CommitWindow();
    this.#now = options.now ?? (() => performance.now());
    this.#retryDelayMs = options.retryDelayMs ?? 50;
  }

  /** Events queued and not yet written. */
  get pending(): number {
    return this.#queue.length;
  }

  get backlogged(): boolean {
    return this.#queuedDeliveries >= BACKLOG_MARK_DELIVERIES;
  }

  drained(): Promise<void> {
    if (this.#queue.length === 0 || this.#closed) return Promise.resolve();
    if (this.#drained === undefined) {
      let resolve = (): void => undefined;
      const promise = new Promise<void>((settle) => {
        resolve = settle;
      });
      this.#drained = { promise, resolve };
    }
    return this.#drained.promise;
  }

  /** What the outbox has done so far, for metrics. */
  get stats(): OutboxStats {
    return {
      eventsWritten: this.#eventsWritten,
      transactions: this.#transactions,
      span: this.#window.span,
      transactionCostMs: this.#window.transactionCostMs,
    };
  }

  enqueue(entry: OutboxEntry<T>): void {
    const startsBatch = this.#queue.length === 0;
    this.#queue.push(entry);
    this.#queuedDeliveries += Math.max(1, entry.target.subscribers.size);
    if (this.#retryTimer !== undefined || this.#closed) return;
    if (!this.#runEndDue) {
      this.#runEndDue = true;
      this.#runSpan = this.#window.noteRun(this.#now(), startsBatch);
      queueMicrotask(this.#atRunEnd);
    }
    if (this.#runSpan === 'turn') this.#immediate ??= setImmediate(this.#commitAtTurnEnd);
  }

  /**
   * Write everything queued in one batch, then send it. Returns false when the write failed
   * (the events stay queued and a retry is scheduled). Safe to call at any time, e.g. by
   * `subscribe`, so that what it serves and the live stream meet without gap or duplicate.
   */
  flush(): boolean {
    if (this.#immediate !== undefined) {
      clearImmediate(this.#immediate);
      this.#immediate = undefined;
    }
    if (this.#queue.length === 0) return true;
    const batch = this.#queue;
    let started: number;
    try {
      const frames = batch.map((entry) => (entry.frame ??= JSON.stringify(entry.event)));
      const events = batch.map((entry) => entry.event);
      started = this.#now();
      this.#store.appendBatch(events, frames);
    } catch (error) {
      this.#options.reportError('appendBatch failed; the events stay queued and are retried', error);
      this.#scheduleRetry();
      return false;
    }
    this.#queue = [];
    this.#queuedDeliveries = 0;
    this.#eventsWritten += batch.length;
    this.#transactions += 1;
    this.#clearRetry();
    this.#afterWrite(batch);
    // The summaries' update is a transaction too: a batch costs both.
    this.#window.noteCommit(batch.length, this.#now() - started);
    this.#sendInOrder(batch);
    this.#settleDrained();
    return true;
  }

  #settleDrained(): void {
    const drained = this.#drained;
    this.#drained = undefined;
    drained?.resolve();
  }

  readonly #commitAtTurnEnd = (): void => {
    this.#immediate = undefined;
    this.flush();
  };

  /** The run that queued events has returned: commit them, unless it belongs to the turn's batch and the burst is small. */
  readonly #atRunEnd = (): void => {
    this.#runEndDue = false;
    if (this.#closed || this.#retryTimer !== undefined) return;
    if (this.#runSpan === 'run' || this.#queue.length >= EARLY_COMMIT_EVENTS) this.flush();
    else if (this.#queue.length > 0) this.#immediate ??= setImmediate(this.#commitAtTurnEnd);
  };

  /** Stop scheduling writes (the owner flushes once more itself). */
  close(): void {
    this.#closed = true;
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#immediate = undefined;
    this.#clearRetry();
    // Nothing will be written any more: a producer waiting for room must not wait forever.
    this.#settleDrained();
  }

  #afterWrite(batch: readonly OutboxEntry<T>[]): void {
    if (!this.#options.onWritten) return;
    try {
      this.#options.onWritten(new Set(batch.map((entry) => entry.target)));
    } catch (error) {
      this.#options.reportError('persisting session summaries failed', error);
    }
  }

  #sendInOrder(batch: readonly OutboxEntry<T>[]): void {
    for (const entry of batch) this.#sendQueue.push(entry);
    if (this.#sending) return;
    this.#sending = true;
    try {
      for (let i = 0; i < this.#sendQueue.length; i++) this.#send(this.#sendQueue[i]!);
    } finally {
      this.#sendQueue = [];
      this.#sending = false;
    }
  }

  #send(entry: OutboxEntry<T>): void {
    const { target, event, reply } = entry;
    const requester = reply?.peer;
    if (target.subscribers.size === 0 && requester === undefined) return;
    let frame: string;
    let answer: string;
    try {
      frame = entry.frame ?? JSON.stringify(event);
      answer = reply?.requestId === undefined ? frame : JSON.stringify({ ...event, requestId: reply.requestId });
    } catch (error) {
      this.#options.reportError(`event ${event.sessionId}#${event.seq} could not be serialised`, error);
      return;
    }
    for (const [peer, servedSeq] of target.subscribers) {
      if (event.seq <= servedSeq) continue;
      if (peer === requester) this.#deliver(peer, answer, answer === frame ? event : undefined);
      else this.#deliver(peer, frame, event);
    }
    if (requester !== undefined && !target.subscribers.has(requester)) this.#deliver(requester, answer, answer === frame ? event : undefined);
  }

  /** `event` goes along only with its plain serialisation, never with a copy that carries a `requestId`. */
  #deliver(peer: Peer, frame: string, event: SessionEvent | undefined): void {
    try {
      peer.send(frame, event);
    } catch (error) {
      // Peer.send must not throw; one that does must not cost the other subscribers their frame.
      this.#options.reportError(`peer ${peer.id} threw from send`, error);
    }
  }

  #scheduleRetry(): void {
    if (this.#retryTimer !== undefined || this.#closed) return;
    const delay = this.#retryDelayMs;
    this.#retryDelayMs = Math.min(delay * 2, this.#options.maxRetryDelayMs ?? 2_000);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.flush();
    }, delay);
  }

  #clearRetry(): void {
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#retryDelayMs = this.#options.retryDelayMs ?? 50;
  }
}
