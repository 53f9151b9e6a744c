import { ReducerError, applyEvent, createSessionState, type SessionSnapshotData, type SessionState } from '../reducer.js';
import type { InterthoughtClient } from './interthought-client.js';
import type { InterthoughtError } from './interthought-error.js';
import type { SessionUpdate } from './session-feeds.js';

/** Options of `new SessionMirror`. */
export interface SessionMirrorOptions {
  /** A state you already have (e.g. cached): the mirror resumes after its `seq` instead of loading a snapshot. */
  from?: SessionSnapshotData;
  /** Told when the subscription fails (e.g. `SESSION_NOT_FOUND`). */
  onError?: (error: InterthoughtError) => void;
}

/** Receives the mirror's state after each update, with the update that changed it. */
export type SessionMirrorListener = (state: SessionState, update: SessionUpdate) => void;

/**
 * An always-current `SessionState` of one session: `subscribe` plus the shared reducer. Rebuilds from
 * every snapshot; if an event does not fit the state (a `ReducerError`), it subscribes again to get a
 * fresh snapshot rather than show a wrong tree. The state is updated in place.
 */
export class SessionMirror {
  /** The session's state; `undefined` until its first snapshot arrives. */
  state: SessionState | undefined;
  /** How many times an event did not fit and the mirror reloaded a snapshot (0 with a correct server). */
  resyncs = 0;

  private readonly listeners = new Set<SessionMirrorListener>();
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly client: InterthoughtClient,
    /** The session mirrored. */
    readonly sessionId: string,
    private readonly options: SessionMirrorOptions = {},
  ) {
    if (options.from) this.state = createSessionState(options.from);
    this.follow(this.state?.seq);
  }

  /** Listen to changes; returns the function that stops listening. */
  onChange(listener: SessionMirrorListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stop mirroring (unsubscribes); the state stays as it was. */
  close(): void {
    this.closed = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.listeners.clear();
  }

  private follow(afterSeq: number | undefined): void {
    const options = afterSeq === undefined ? { onError: this.options.onError } : { afterSeq, onError: this.options.onError };
    this.unsubscribe = this.client.subscribe(this.sessionId, (update) => this.apply(update), options);
  }

  private apply(update: SessionUpdate): void {
    if (this.closed) return;
    if (update.type === 'session.snapshot') {
      this.state = createSessionState(update);
    } else if (!this.state) {
      // Only possible with a server that sends events before the snapshot: wait for one.
      return;
    } else if (update.type === 'session.deleted' && update.seq !== this.state.seq + 1) {
      // The last event: events missed before it went with the log, so mark the state as it is.
      this.state.deleted = true;
      this.state.seq = Math.max(this.state.seq, update.seq);
    } else {
      try {
        applyEvent(this.state, update);
      } catch (error) {
        if (!(error instanceof ReducerError)) throw error;
        this.reload();
        return;
      }
    }
    this.notify(this.state, update);
  }

  /** Every listener hears of every change, even if one of them throws; the first error is rethrown for the client to report. */
  private notify(state: SessionState, update: SessionUpdate): void {
    let failure: { error: unknown } | undefined;
    for (const listener of [...this.listeners]) {
      try {
        listener(state, update);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  /** Drop the subscription and take a new one without a cursor: the server answers with a snapshot. */
  private reload(): void {
    this.resyncs += 1;
    this.unsubscribe?.();
    this.follow(undefined);
  }
}
