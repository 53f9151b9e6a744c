import { applyEvent, createSessionState, toSnapshot, type SessionEvent, type SessionInfo, type SessionSnapshotData } from '@interthought/protocol';
import type { Redis } from 'ioredis';
import { stateBeforeFirstEvent } from '../core/persistence/session-loader.js';
import { sessionKeys } from './redis-keys.js';
import type { ClusterScripts } from './redis-scripts.js';

/** Events kept per session when cluster mode is not told otherwise: logs live in Redis' memory. */
export const DEFAULT_RETAINED_EVENTS = 1_000;

/** The longest a log may grow past `keep` before it is trimmed, as a fraction of `keep`. */
const SLACK_FRACTION = 4;

/** `[id, [field, value]]` entries of XRANGE on a session log. */
export type StreamEntries = [id: string, fields: string[]][];

/**
 * Keeps each session's log in Redis to its newest `keep` events, as the SQLite store's
 * `Retention` does: once a log exceeds `keep + keep / 4`, the oldest events are folded into the
 * session's snapshot with the protocol reducer and dropped, so snapshot plus kept events is still
 * the whole session. The fold runs here; the write is one script that refuses when another trim
 * moved the log's start meanwhile (a trim from a node that lost the session is then harmless, and
 * otherwise equal: the events it folded never change).
 *
 * A trim runs behind the appends, never in their way: it is two more round trips to Redis and a
 * fold of a quarter of `keep` events, and while the append that set it off waited for it, so did
 * that batch's events and every batch queued behind it (the outbox has one append in flight),
 * several times a second per busy session. One trim at a time per session; the appends that land
 * meanwhile are remembered, and once it lands the next trim starts if the log is still too long.
 */
export class RedisRetention {
  readonly #slack: number;
  /** Sessions whose log cannot be folded; left whole instead of retried on every batch. */
  readonly #unfoldable = new Set<string>();
  /** The trim under way of each session, at most one. */
  readonly #running = new Map<string, Promise<void>>();
  /** The last seq appended to a session while its trim was under way. */
  readonly #appendedMeanwhile = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly scripts: ClusterScripts,
    readonly keep: number,
  ) {
    this.#slack = Math.max(1, Math.floor(keep / SLACK_FRACTION));
  }

  /** After an append answered {lastSeq, firstSeq}: start a trim when the log outgrew the limit. Never throws. */
  afterAppend(sessionId: string, firstSeq: number, lastSeq: number): void {
    if (this.#running.has(sessionId)) {
      this.#appendedMeanwhile.set(sessionId, Math.max(lastSeq, this.#appendedMeanwhile.get(sessionId) ?? 0));
      return;
    }
    if (firstSeq < 1 || lastSeq - firstSeq + 1 <= this.keep + this.#slack || this.#unfoldable.has(sessionId)) return;
    const throughSeq = lastSeq - this.keep;
    const trim = this.#trimOrGiveUp(sessionId, firstSeq, throughSeq).finally(() => {
      this.#running.delete(sessionId);
      const meanwhile = this.#appendedMeanwhile.get(sessionId);
      this.#appendedMeanwhile.delete(sessionId);
      // The log now starts after throughSeq (unless another trim moved it: then this one finds out).
      if (meanwhile !== undefined) this.afterAppend(sessionId, throughSeq + 1, meanwhile);
    });
    this.#running.set(sessionId, trim);
  }

  /**
   * Resolves once the trims under way of `sessionId` (of every session, without one) have landed,
   * those they set off included. Never rejects.
   */
  async settled(sessionId?: string): Promise<void> {
    for (;;) {
      const running = sessionId === undefined ? [...this.#running.values()] : [this.#running.get(sessionId)].filter((trim) => trim !== undefined);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  async #trimOrGiveUp(sessionId: string, firstSeq: number, throughSeq: number): Promise<void> {
    try {
      await this.#trim(sessionId, firstSeq, throughSeq);
    } catch (error) {
      this.#unfoldable.add(sessionId);
      process.emitWarning(
        `Retention keeps every event of session ${sessionId}: its log could not be folded into a snapshot (${(error as Error).message}).`,
        { code: 'INTERTHOUGHT_RETENTION' },
      );
    }
  }

  /** Drop what is remembered of a deleted session. */
  forget(sessionId: string): void {
    this.#unfoldable.delete(sessionId);
    this.#appendedMeanwhile.delete(sessionId);
  }

  /**
   * Fold and drop the events up to `throughSeq`. The snapshot, summary, log start and events are
   * read in one MULTI, so they agree; when another trim moved the log's start meanwhile, this one
   * ends quietly (the script would refuse it anyway).
   */
  async #trim(sessionId: string, firstSeq: number, throughSeq: number): Promise<void> {
    const keys = sessionKeys(sessionId);
    const replies = await this.redis
      .multi()
      .get(keys.snap)
      .hmget(keys.meta, 'info', 'firstSeq')
      .xrange(keys.log, `${firstSeq}-0`, `${throughSeq}-0`)
      .exec();
    const [snapshot, [info, storedFirstSeq], entries] = resultsOf(replies) as [string | null, (string | null)[], StreamEntries];
    if (info == null || Number(storedFirstSeq) !== firstSeq) return;
    const state = snapshot === null ? stateBeforeFirstEvent(JSON.parse(info) as SessionInfo) : createSessionState(JSON.parse(snapshot) as SessionSnapshotData);
    if (state.seq !== firstSeq - 1) throw new Error(`the snapshot is at seq ${state.seq} but the log starts at seq ${firstSeq}`);
    for (const [, fields] of entries) applyEvent(state, JSON.parse(fields[1] ?? 'null') as SessionEvent);
    if (state.seq !== throughSeq) throw new Error(`the fold reached seq ${state.seq}, not ${throughSeq}`);
    const folded: SessionSnapshotData = toSnapshot(state);
    await this.scripts.trim([keys.meta, keys.log, keys.snap], [firstSeq, throughSeq, JSON.stringify(folded)]);
  }
}

/** The replies of an EXEC, or its first error thrown. */
function resultsOf(replies: [error: Error | null, result: unknown][] | null): unknown[] {
  if (replies === null) throw new Error('the transaction was discarded');
  return replies.map(([error, result]) => {
    if (error) throw error;
    return result;
  });
}
