import {
  SESSION_EVENT_TRAITS,
  applyEvent,
  isActive,
  chainOfScope,
  type FailureReason,
  type LoggedSessionEvent,
  type SessionEvent,
  type SessionInfo,
  type SessionOptions,
  type SessionState,
  type SessionStatus,
  type Step,
} from '@interthought/protocol';
import type { OutboxEntry, OutboxTarget, SummaryTaken } from '../persistence/outbox.js';
import { PauseGate } from '../run/pause-gate.js';
import { SessionError } from '../session-error.js';
import type { Peer, ReplyTo } from '../fanout/peer.js';
import { ScopeRuns } from '../subagents/scope-runs.js';

/** The fields every event of a session carries, for its next event. */
export interface EventBase {
  sessionId: string;
  seq: number;
  at: string;
}

/** What a live session needs of the run driving it (see `AgentRun`). */
export interface SessionRun {
  /** The sub-agent's scope the run writes in (PROTOCOL.md §24); `undefined` for the session's own chain. */
  readonly scope: string | undefined;
  /** Aborted with the run; a sub-agent's run ends with its parent's. */
  readonly signal: AbortSignal;
  /** Still its scope's run and not aborted: only then may it write. */
  readonly live: boolean;
  abort(why: string): void;
  /** Settles once the agent's `run()` has settled (or at once when it never started). */
  readonly settled: Promise<void>;
}

/** Who follows a session in this process: owned by `Subscriptions`, read here and by the outbox. */
export type SubscribersOf = (session: LiveSession) => ReadonlyMap<Peer, number>;

/**
 * One session held in memory: its reducer state (the single definition of its state), its
 * subscribers, its pause gate and its current run. Every change is an event appended here:
 * folded into the state at once, then queued in the outbox to be written and fanned out.
 */
const NO_SUBSCRIBERS: ReadonlyMap<Peer, number> = new Map();

export class LiveSession implements OutboxTarget {
  readonly id: string;
  readonly state: SessionState;
  readonly options: SessionOptions;
  readonly gate = new PauseGate();
  /** The runs allowed to write to this session, one per scope; any other run is stale and stays silent. */
  readonly runs = new ScopeRuns<SessionRun>();
  /** The last seq the store holds: events after it are appended here but not written yet (never sent). */
  #writtenSeq: number;
  /** Bumped by every change of the summary; the stored summary is as of `#storedSummaryVersion`. */
  #summaryVersion = 0;
  #storedSummaryVersion = 0;
  /** Set when the session is deleted: its log is gone, so nothing may be appended any more. */
  #deleted = false;
  /** Set when this process let the session go (another one owns it): nothing may be appended any more. */
  #retired = false;
  /** Whose quota of active sessions its run counts against (`Quota.key`; in memory only: a restart ends every run). */
  #quotaKey: string | undefined;
  readonly #enqueue: (entry: OutboxEntry<LiveSession>) => void;
  readonly #now: () => Date;
  readonly #subscribersOf: SubscribersOf;

  constructor(
    state: SessionState,
    options: SessionOptions,
    enqueue: (entry: OutboxEntry<LiveSession>) => void,
    now: () => Date,
    subscribersOf: SubscribersOf = () => NO_SUBSCRIBERS,
  ) {
    this.id = state.session.sessionId;
    this.state = state;
    this.options = options;
    this.#enqueue = enqueue;
    this.#now = now;
    this.#subscribersOf = subscribersOf;
    // Built from the store (or before the first event), so all of the state is written.
    this.#writtenSeq = state.seq;
    if (state.session.status === 'paused') this.gate.close();
  }

  /** Each subscriber in this process with the last seq its snapshot or replay covered (`OutboxTarget`). */
  get subscribers(): ReadonlyMap<Peer, number> {
    return this.#subscribersOf(this);
  }

  /** The run of the session's own chain (the root scope), if any. */
  get run(): SessionRun | undefined {
    return this.runs.of(undefined);
  }

  /** Whether anything runs: the session's own run or a sub-agent's. */
  get hasRun(): boolean {
    return this.runs.size > 0;
  }

  /** `run` is the one allowed to write to its scope from now on (a previous one is stale). */
  claimRun(run: SessionRun): void {
    this.runs.claim(run);
  }

  /** `run` ended: its scope has no run, unless a newer one claimed it meanwhile. */
  releaseRun(run: SessionRun): void {
    this.runs.release(run);
  }

  /** Abort every run of the session, the sub-agents' included. */
  abortRuns(why: string): void {
    for (const run of this.runs.all()) run.abort(why);
  }

  get deleted(): boolean {
    return this.#deleted;
  }

  /** The session and its log are deleted: nothing may be appended any more. */
  markDeleted(): void {
    this.#deleted = true;
  }

  get quotaKey(): string | undefined {
    return this.#quotaKey;
  }

  /** The run a request starts counts against `key`'s quota of active sessions (none: the server's cap only). */
  countAgainst(key: string | undefined): void {
    this.#quotaKey = key;
  }

  /** The last seq the store holds; every event up to it has been sent to the subscribers of its time. */
  get writtenSeq(): number {
    return this.#writtenSeq;
  }

  /** Events appended but not yet written (a session with some is never evicted). */
  get unwritten(): number {
    return this.state.seq - this.#writtenSeq;
  }

  /** The summary changed and is not stored yet. */
  get summaryChanged(): boolean {
    return this.#summaryVersion !== this.#storedSummaryVersion;
  }

  /** The summary to store with the next batch, if it changed (`OutboxTarget`). */
  takeSummary(): SummaryTaken | undefined {
    return this.summaryChanged ? { info: this.info, version: this.#summaryVersion } : undefined;
  }

  /** The outbox wrote this session's events up to `lastSeq`, and the summary it took (`OutboxTarget`). */
  noteWritten(lastSeq: number, summary: SummaryTaken | undefined): void {
    this.#writtenSeq = Math.max(this.#writtenSeq, lastSeq);
    if (summary !== undefined && summary.version > this.#storedSummaryVersion) this.#storedSummaryVersion = summary.version;
  }

  get status(): SessionStatus {
    return this.state.session.status;
  }

  get info(): SessionInfo {
    return { ...this.state.session };
  }

  /** The `sessionId`, `seq` and `at` of the event appended next. */
  nextBase(): EventBase {
    return { sessionId: this.id, seq: this.state.seq + 1, at: this.#now().toISOString() };
  }

  /**
   * Fold the event into the state and queue it for writing and fan-out. `reply` marks the
   * requester of a status change, who gets its copy with `requestId`. A `ReducerError` here
   * means the core built an event that does not fit: nothing is changed or queued.
   */
  append(event: LoggedSessionEvent, reply?: ReplyTo): void {
    // A queued event of a deleted session could never be written, and would hold up every batch after it.
    if (this.#deleted) throw new SessionError('SESSION_NOT_FOUND', `Session ${this.id} was deleted.`);
    if (this.#retired) throw new SessionError('INTERNAL', `Session ${this.id} is run elsewhere now; send the request again.`);
    // `session.deleted` cannot reach here (the type excludes it): `SessionManager.delete` sends it, never logs it.
    applyEvent(this.state, event);
    if (event.type === 'session.status') {
      if (event.status === 'paused') this.gate.close();
      else this.gate.open();
    }
    // Which events change the stored summary is the protocol's rule (its usage totals are part of it: §22.4).
    if (SESSION_EVENT_TRAITS[event.type].changesSummary) this.#summaryVersion += 1;
    this.#enqueue(reply ? { target: this, event, reply } : { target: this, event });
  }

  /** Append a `session.status` event. Without `error`, `detail` or `failure`, the previous ones are cleared. */
  setStatus(status: SessionStatus, extra: { error?: string; detail?: string; failure?: FailureReason; reply?: ReplyTo } = {}): void {
    const event: SessionEvent = { type: 'session.status', ...this.nextBase(), status };
    if (extra.error !== undefined) event.error = extra.error;
    if (extra.failure !== undefined) event.failure = extra.failure;
    if (extra.detail !== undefined) event.detail = extra.detail;
    this.append(event, extra.reply);
  }

  /** The chain of `scope` (the session's own when absent); empty for a scope never opened. */
  chainOf(scope?: string): readonly string[] {
    return chainOfScope(this.state, scope) ?? [];
  }

  /** The step at the head of the chain (of `scope`), if any. */
  head(scope?: string): Step | undefined {
    const chain = this.chainOf(scope);
    const headId = chain[chain.length - 1];
    return headId === undefined ? undefined : this.state.steps.get(headId);
  }

  /**
   * Finish a head step left streaming by a run that died (a restart, a pause across one) with
   * the text it has, so the next run continues after complete steps only.
   */
  finishDanglingHead(scope?: string): void {
    const head = this.head(scope);
    if (head === undefined || head.status !== 'streaming') return;
    const event: SessionEvent = { type: 'step.completed', ...this.nextBase(), stepId: head.stepId, content: head.content };
    if (head.tool !== undefined) event.tool = head.tool;
    this.append(event);
  }

  /** This process lets the session go: every later append is refused. */
  retire(): void {
    this.#retired = true;
  }

  /** Deep copies of the chain's steps (of `scope`), root first: what an agent gets as its context. */
  chainCopy(scope?: string): Step[] {
    return this.chainOf(scope).flatMap((id) => {
      const step = this.state.steps.get(id);
      return step === undefined ? [] : [structuredClone(step)];
    });
  }

  /** Active, running an agent, holding unwritten events or summary, or watched: must stay in memory. */
  get busy(): boolean {
    return this.hasRun || isActive(this.status) || this.unwritten > 0 || this.summaryChanged || this.subscribers.size > 0;
  }
}
