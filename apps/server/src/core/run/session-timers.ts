import type { SessionInfo } from '@interthought/protocol';
import { timedWait } from '../commands/pending-wait.js';
import type { EventStore } from '../persistence/event-store.js';
import { loadSession } from '../persistence/session-loader.js';
import type { LiveSession } from '../sessions/live-session.js';
import { ApprovalDeadlines } from './approval-deadlines.js';
import { PausedRunExpiry } from './paused-run-expiry.js';

export interface SessionTimersOptions {
  store: EventStore;
  now: () => Date;
  /** A run paused this long is stopped (default 15 min). */
  pausedRunTtlMs?: number;
  /** The paused run's time is up. */
  pausedTooLong(session: LiveSession): void;
  /** A pending approval's deadline passed (`options.approvalTimeoutMs`). */
  approvalTimedOut(sessionId: string, stepId: string): void;
  /** A pending question's deadline passed (`options.inputTimeoutMs`, PROTOCOL.md §25.2). */
  questionTimedOut(sessionId: string, stepId: string): void;
  /** Whether this process holds the session in memory (a session held here keeps its own deadline). */
  holdsInMemory(sessionId: string): boolean;
  reportError: (context: string, error: unknown) => void;
}

/** The clocks of sessions: how long a run may stay paused, and when a pending approval or question times out. */
export class SessionTimers {
  readonly #pausedRuns: PausedRunExpiry<LiveSession>;
  readonly #deadlines: ApprovalDeadlines;
  /** Stopped at shutdown: a read of the log begun before then may fail on the closing store, and is no failure. */
  #stopped = false;

  constructor(private readonly options: SessionTimersOptions) {
    this.#pausedRuns = new PausedRunExpiry(options.pausedRunTtlMs ?? 15 * 60_000, (session) => options.pausedTooLong(session));
    this.#deadlines = new ApprovalDeadlines(
      (sessionId, stepId, kind) => (kind === 'question' ? options.questionTimedOut(sessionId, stepId) : options.approvalTimedOut(sessionId, stepId)),
      options.now,
    );
  }

  /** The session was paused: its run is stopped if it stays paused for the TTL. */
  armPaused(session: LiveSession): void {
    this.#pausedRuns.arm(session);
  }

  /** The session runs on (or waits for a decision): a paused run's clock stops. */
  disarmPaused(session: LiveSession): void {
    this.#pausedRuns.disarm(session);
  }

  /** A decision ends the wait: the deadline stops. */
  disarmDeadline(sessionId: string): void {
    this.#deadlines.disarm(sessionId);
  }

  /** Both clocks of the session stop (its run is stopped). */
  disarm(session: LiveSession): void {
    this.#pausedRuns.disarm(session);
    this.#deadlines.disarm(session.id);
  }

  /** Start the session's one clock, for the first pending wait (approval or question) its options give a timeout. */
  armDeadlineOf(state: LiveSession['state'], options: LiveSession['options']): void {
    const pending = timedWait(state, options);
    if (pending === undefined) return;
    this.#deadlines.arm(state.session.sessionId, pending.stepId, pending.requestedAt ?? this.options.now().toISOString(), pending.timeoutMs, pending.kind);
  }

  /**
   * A session's summary changed somewhere (cluster mode: on any node). When it waits for a decision
   * with a timeout, this process keeps the deadline's clock too, read from the stored log: a
   * waiting session has no owner, so the node that set the clock may die with it. When it no longer
   * waits, that clock stops. Never throws.
   */
  async followDeadline(info: SessionInfo): Promise<void> {
    if (info.status !== 'waiting') {
      // A session held here keeps its own clock (it is disarmed as its call is decided).
      if (!this.options.holdsInMemory(info.sessionId)) this.#deadlines.disarm(info.sessionId);
      return;
    }
    try {
      const loaded = await loadSession(this.options.store, info.sessionId);
      if (this.#stopped) return;
      if (loaded !== undefined && loaded.state.session.status === 'waiting') this.armDeadlineOf(loaded.state, loaded.options);
    } catch (error) {
      if (!this.#stopped) this.options.reportError(`reading waiting session ${info.sessionId} failed`, error);
    }
  }

  /** At start: the deadlines of stored sessions waiting (for a decision or an answer) with a timeout run on from their `requestedAt` (read from their logs, not kept in memory). */
  async armStored(): Promise<void> {
    const waiting = await this.options.store.listSessionsByStatus('waiting');
    for (const record of waiting) {
      if (record.options.approvalTimeoutMs === undefined && record.options.inputTimeoutMs === undefined) continue;
      try {
        const loaded = await loadSession(this.options.store, record.info.sessionId);
        if (loaded !== undefined) this.armDeadlineOf(loaded.state, loaded.options);
      } catch (error) {
        this.options.reportError(`reading waiting session ${record.info.sessionId} failed`, error);
      }
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#pausedRuns.stop();
    this.#deadlines.stop();
  }
}
