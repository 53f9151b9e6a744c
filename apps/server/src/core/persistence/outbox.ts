import type { SessionEvent, SessionInfo } from '@interthought/protocol';
import type { IndexedCorrection } from '../../corrections/correction-index.js';
import { CommitWindow, type CommitSpan } from './commit-window.js';
import type { EventStore } from './event-store.js';
import { deliverWithReply } from '../fanout/reply-delivery.js';
import type { ReplyTo } from '../fanout/peer.js';
import type { Peer } from '../fanout/peer.js';

export { EARLY_COMMIT_EVENTS } from './commit-window.js';

/** A summary handed to the store with a batch, and the version of it that was taken. */
export interface SummaryTaken {
  info: SessionInfo;
  version: number;
}

/**
 * Where an event goes after it is written: the session's subscribers, each with the last seq
 * it already got from a snapshot or replay (it only gets live events after that). The target
 * owns its written state: it hands over its changed summary for a batch, and is told once
 * what of it was written.
 */
export interface OutboxTarget {
  readonly subscribers: ReadonlyMap<Peer, number>;
  /** The summary to store with the next batch, when it changed since it was last stored. */
  takeSummary?(): SummaryTaken | undefined;
  /** The batch holding this target's events up to `lastSeq` (and `summary`, if one was taken) is written. */
  noteWritten?(lastSeq: number, summary: SummaryTaken | undefined): void;
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
  /** Set by the outbox: the entry's place in the order of everything ever queued (1, 2, …). */
  ordinal?: number;
  /** Set by the outbox as the entry is queued: the corrections its event makes, for the store's index. */
  corrections?: readonly IndexedCorrection[];
}

/** What a written batch was, reported once, after the targets noted it and before it is sent. */
export interface WrittenReport<T extends OutboxTarget> {
  targets: ReadonlySet<T>;
  /** The summaries stored with the batch (a session created, its status or revision changed). */
  summaries: readonly SessionInfo[];
}

/**
 * A store refusal that concerns some sessions for good: their events can never be written (in
 * cluster mode, another node took them over and the store fenced this one off). The rest of the
 * batch is still to be written.
 */
export interface SessionsLost {
  readonly lostSessionIds: readonly string[];
}

function lostSessionsOf(error: unknown): ReadonlySet<string> {
  const ids = (error as Partial<SessionsLost> | undefined)?.lostSessionIds;
  return new Set(Array.isArray(ids) ? ids : []);
}

export interface OutboxOptions<T extends OutboxTarget> {
  store: EventStore;
  /** Told when a write failed (the events stay queued and are retried), e.g. to refuse what waits for them. */
  onWriteFailed?: () => void;
  /** Told of targets whose queued events were dropped because the store refused them for good (`SessionsLost`). */
  onLost?: (targets: ReadonlySet<T>) => void;
  /** Told of each written batch before it is sent (e.g. to serve subscriptions waiting for it). */
  onWritten?: (report: WrittenReport<T>) => void;
  /** Where write failures and misbehaving peers are reported; the outbox itself never throws from a tick. */
  reportError: (context: string, error: unknown) => void;
  /** The commit policy: when to commit, from what transactions cost (one per outbox by default: it measures this outbox's store). */
  commitWindow?: CommitWindow;
  /** The clock transactions are timed with, in ms. */
  now?: () => number;
  /**
   * The corrections an entry's event makes (PROTOCOL.md §26.1), asked as it is queued, while the
   * target's state is exactly the state after the event; written with the batch.
   */
  correctionsOf?: (entry: OutboxEntry<T>) => readonly IndexedCorrection[];
  /** First retry delay after a failed write, doubled up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
}

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

/** Someone waiting for the events queued so far (up to `ticket`) to be written and sent. */
interface Waiter {
  ticket: number;
  settle: (written: boolean) => void;
  /** A failed write answers it at once (with false) instead of waiting for the retry. */
  failFast: boolean;
}

/**
 * Group commit and fan-out. The events a synchronous run queues are written with ONE
 * `store.appendBatch` when it returns (a microtask), or, while transactions are dear (see
 * `CommitWindow`), together with every other run's of the turn on the next `setImmediate`;
 * then each is serialised once and the same string goes to every subscriber of its session.
 *
 * One append is in flight at a time: what is queued meanwhile is the next batch, written as soon
 * as the first is (group commit, whatever the store). Nothing is sent before it is written, and
 * batches are sent in the order they were queued: a failed write puts its batch back in front
 * of the queue and retries with backoff.
 */
export class Outbox<T extends OutboxTarget = OutboxTarget> implements Backlog {
  readonly #store: EventStore;
  readonly #options: OutboxOptions<T>;
  readonly #window: CommitWindow;
  readonly #now: () => number;
  #queue: OutboxEntry<T>[] = [];
  /** A commit was asked for while a batch was in flight: write the queue as soon as it lands. */
  #commitWhenLanded = false;
  /** Written events being sent; a send that queues and flushes again adds to it, in order. */
  #sendQueue: OutboxEntry<T>[] = [];
  #sending = false;
  #immediate: NodeJS.Immediate | undefined;
  /** A microtask is due at the end of the current synchronous run: the window decides whether it commits. */
  #runEndDue = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #retryDelayMs: number;
  #closed = false;
  #eventsWritten = 0;
  #transactions = 0;
  /** Events ever queued: a waiter's ticket is the ordinal of the last one queued when it asked. */
  #queuedTotal = 0;
  /** The batch being appended (empty when none). */
  #inFlightBatch: OutboxEntry<T>[] = [];
  #waiters: Waiter[] = [];
  /** Deliveries the queued and in-flight events will cost (each counts its subscribers, at least one). */
  #pendingDeliveries = 0;
  /** Targets whose events can never be written (their log is gone): a failed batch does not take theirs back. */
  readonly #discarded = new WeakSet<T>();

  constructor(options: OutboxOptions<T>) {
    this.#store = options.store;
    this.#options = options;
    this.#window = options.commitWindow ?? new CommitWindow();
    this.#now = options.now ?? (() => performance.now());
    this.#retryDelayMs = options.retryDelayMs ?? 50;
  }

  /** Events queued or in flight, not yet written. */
  get pending(): number {
    return this.#inFlightBatch.length + this.#queue.length;
  }

  get backlogged(): boolean {
    return this.#pendingDeliveries >= BACKLOG_MARK_DELIVERIES;
  }

  drained(): Promise<void> {
    return this.#wait(false).then(() => undefined);
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
    this.#queuedTotal += 1;
    entry.ordinal = this.#queuedTotal;
    const corrections = this.#options.correctionsOf?.(entry);
    if (corrections !== undefined && corrections.length > 0) entry.corrections = corrections;
    this.#queue.push(entry);
    this.#pendingDeliveries += Math.max(1, entry.target.subscribers.size);
    if (this.#retryTimer !== undefined || this.#closed) return;
    if (this.#runEndDue) return;
    this.#runEndDue = true;
    this.#window.noteRun(this.#now(), startsBatch);
    queueMicrotask(this.#atRunEnd);
  }

  /**
   * Write everything queued now (after the batch in flight, if any) and send it. Resolves true
   * once all of it is written and sent, false if a write failed meanwhile (the events stay
   * queued and are retried). Safe to call at any time.
   */
  flush(): Promise<boolean> {
    const written = this.#wait(true);
    this.#commit();
    return written;
  }

  /**
   * Drop what is queued for `target` and not in flight: its log is gone (the session was deleted),
   * so those events can never be written; they were never sent either.
   */
  discard(target: T): void {
    this.#discarded.add(target);
    this.#queue = this.#queue.filter((entry) => entry.target !== target);
    this.#pendingDeliveries = this.#countQueuedDeliveries();
    this.#settleWaiters(true);
  }

  /** Stop scheduling writes (the owner flushes once more itself). */
  close(): void {
    this.#closed = true;
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#immediate = undefined;
    this.#clearRetry();
    // Nothing will be written on its own any more: a producer waiting for room must not wait
    // forever. Those waiting for a write keep waiting for the owner's last flush.
    const writeWaiters = this.#waiters.filter((waiter) => waiter.failFast);
    for (const waiter of this.#waiters) if (!waiter.failFast) waiter.settle(true);
    this.#waiters = writeWaiters;
  }

  /** The ordinal of the oldest entry not yet written and sent (anything before it is done). */
  #oldestPending(): number {
    return this.#inFlightBatch[0]?.ordinal ?? this.#queue[0]?.ordinal ?? this.#queuedTotal + 1;
  }

  #wait(failFast: boolean): Promise<boolean> {
    const ticket = this.#queuedTotal;
    if (ticket < this.#oldestPending() || (this.#closed && !failFast)) return Promise.resolve(true);
    return new Promise<boolean>((settle) => this.#waiters.push({ ticket, settle, failFast }));
  }

  /** The run that queued events has returned: commit them now, or with the turn, as the window says. */
  readonly #atRunEnd = (): void => {
    this.#runEndDue = false;
    if (this.#closed || this.#retryTimer !== undefined || this.#queue.length === 0) return;
    if (this.#window.commitAtRunEnd(this.#queue.length)) this.#commit();
    else this.#immediate ??= setImmediate(this.#commitAtTurnEnd);
  };

  readonly #commitAtTurnEnd = (): void => {
    this.#immediate = undefined;
    this.#commit();
  };

  /** Start appending the queue as one batch, unless one is in flight (then it follows that one). */
  #commit(): void {
    if (this.#immediate !== undefined) {
      clearImmediate(this.#immediate);
      this.#immediate = undefined;
    }
    if (this.#queue.length === 0) return;
    if (this.#inFlightBatch.length > 0) {
      this.#commitWhenLanded = true;
      return;
    }
    if (this.#retryTimer !== undefined) {
      // A commit asked for explicitly goes ahead now instead of waiting out the backoff.
      clearTimeout(this.#retryTimer);
      this.#retryTimer = undefined;
    }
    const batch = this.#queue;
    this.#queue = [];
    this.#inFlightBatch = batch;
    this.#commitWhenLanded = false;
    void this.#append(batch);
  }

  async #append(batch: OutboxEntry<T>[]): Promise<void> {
    const summaries = new Map<T, SummaryTaken>();
    let started = this.#now();
    try {
      const frames = batch.map((entry) => (entry.frame ??= JSON.stringify(entry.event)));
      const events = batch.map((entry) => entry.event);
      for (const entry of batch) {
        if (summaries.has(entry.target)) continue;
        const summary = entry.target.takeSummary?.();
        if (summary !== undefined) summaries.set(entry.target, summary);
      }
      const infos = [...summaries.values()].map((summary) => summary.info);
      const corrections = batch.flatMap((entry) => entry.corrections ?? []);
      started = this.#now();
      await this.#store.appendBatch({
        events,
        frames,
        ...(infos.length > 0 ? { summaries: infos } : {}),
        ...(corrections.length > 0 ? { corrections } : {}),
      });
    } catch (error) {
      this.#inFlightBatch = [];
      const lost = lostSessionsOf(error);
      if (lost.size > 0) {
        this.#dropLost(batch, lost);
        return;
      }
      this.#options.reportError('appendBatch failed; the events stay queued and are retried', error);
      // Back in front of what queued meanwhile, so the order of every session's events holds.
      this.#queue = batch.filter((entry) => !this.#discarded.has(entry.target)).concat(this.#queue);
      this.#failWaiters();
      this.#options.onWriteFailed?.();
      this.#scheduleRetry();
      return;
    }
    this.#inFlightBatch = [];
    this.#eventsWritten += batch.length;
    this.#transactions += 1;
    this.#clearRetry();
    this.#window.noteCommit(batch.length, this.#now() - started);
    this.#reportWritten(batch, summaries);
    this.#sendInOrder(batch);
    this.#settleWaiters(true);
    if (this.#queue.length > 0 && (this.#commitWhenLanded || this.#closed)) this.#commit();
  }

  /** Drop every queued event of sessions the store refused for good; write the rest at once. */
  #dropLost(batch: OutboxEntry<T>[], lost: ReadonlySet<string>): void {
    const all = batch.concat(this.#queue);
    const kept = all.filter((entry) => !lost.has(entry.event.sessionId));
    const dropped = new Set(all.filter((entry) => lost.has(entry.event.sessionId)).map((entry) => entry.target));
    this.#queue = kept;
    this.#pendingDeliveries = this.#countQueuedDeliveries();
    // Never to be sent: nobody waits for them.
    this.#settleWaiters(true);
    try {
      this.#options.onLost?.(dropped);
    } catch (error) {
      this.#options.reportError('reacting to lost sessions failed', error);
    }
    this.#commit();
  }

  #reportWritten(batch: readonly OutboxEntry<T>[], summaries: ReadonlyMap<T, SummaryTaken>): void {
    const lastSeqs = new Map<T, number>();
    for (const entry of batch) lastSeqs.set(entry.target, entry.event.seq);
    try {
      for (const [target, lastSeq] of lastSeqs) target.noteWritten?.(lastSeq, summaries.get(target));
      this.#options.onWritten?.({ targets: new Set(lastSeqs.keys()), summaries: [...summaries.values()].map((summary) => summary.info) });
    } catch (error) {
      this.#options.reportError('reacting to a written batch failed', error);
    }
  }

  /** Answer the waiters whose events are all done. */
  #settleWaiters(written: boolean): void {
    if (this.#waiters.length === 0) return;
    const oldestPending = this.#oldestPending();
    const still: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (waiter.ticket < oldestPending) waiter.settle(written);
      else still.push(waiter);
    }
    this.#waiters = still;
  }

  #failWaiters(): void {
    const still: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (waiter.failFast) waiter.settle(false);
      else still.push(waiter);
    }
    this.#waiters = still;
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
      // What is owed now is the queue's fan-out (subscriber counts change between enqueue and send).
      this.#pendingDeliveries = this.#countQueuedDeliveries();
    }
  }

  /** Deliveries the queue will cost. */
  #countQueuedDeliveries(): number {
    let deliveries = 0;
    for (const entry of this.#queue) deliveries += Math.max(1, entry.target.subscribers.size);
    return deliveries;
  }

  #send(entry: OutboxEntry<T>): void {
    const { target, event, reply } = entry;
    if (target.subscribers.size === 0 && reply === undefined) return;
    deliverWithReply(event, entry.frame, target.subscribers, reply, this.#options.reportError);
  }

  #scheduleRetry(): void {
    if (this.#retryTimer !== undefined || this.#closed) return;
    const delay = this.#retryDelayMs;
    this.#retryDelayMs = Math.min(delay * 2, this.#options.maxRetryDelayMs ?? 2_000);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#commit();
    }, delay);
  }

  #clearRetry(): void {
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#retryDelayMs = this.#options.retryDelayMs ?? 50;
  }
}
