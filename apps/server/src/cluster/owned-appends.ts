import type { SessionInfo, SessionSnapshotData, SessionStatus, SessionEvent } from '@interthought/protocol';
import type { AppendBatch, EventStore, SessionPage, SessionRecord } from '../core/persistence/event-store.js';
import type { SessionsLost } from '../core/persistence/outbox.js';
import { EventStoreError } from '../core/persistence/event-store.js';
import type { Ownership } from './ownership.js';
import type { ClusterLog } from './cluster-log.js';
import type { IndexedCorrection } from '../corrections/correction-index.js';
import type { StoredCorrections } from '../corrections/stored-corrections.js';

/** Appends refused for good for some sessions: another node owns them now (see `SessionsLost`). */
export class SessionsFencedError extends EventStoreError implements SessionsLost {
  constructor(readonly lostSessionIds: readonly string[]) {
    super('FENCED', `Sessions ${lostSessionIds.join(', ')} are owned by another node now; this node wrote nothing of theirs.`);
  }
}

interface SessionPart {
  events: SessionEvent[];
  frames: string[];
  summaries: SessionInfo[];
  corrections: IndexedCorrection[];
}

/** The batch's events, frames, summaries and corrections of each session, in order. */
function bySession(batch: AppendBatch): Map<string, SessionPart> {
  const parts = new Map<string, SessionPart>();
  const partOf = (sessionId: string) => {
    let part = parts.get(sessionId);
    if (part === undefined) parts.set(sessionId, (part = { events: [], frames: [], summaries: [], corrections: [] }));
    return part;
  };
  batch.events.forEach((event, index) => {
    const part = partOf(event.sessionId);
    part.events.push(event);
    part.frames.push(batch.frames[index]!);
  });
  for (const summary of batch.summaries ?? []) partOf(summary.sessionId).summaries.push(summary);
  for (const correction of batch.corrections ?? []) partOf(correction.record.sessionId).corrections.push(correction);
  return parts;
}

/**
 * The cluster's log as a node's session core uses it: a session it creates is its own from
 * the start (the lease is taken before the first event), and it appends only to sessions it
 * holds the lease of, under that lease's epoch. Events of a session it does not hold, or that the
 * store fences off, are refused with `SessionsFencedError`, which the outbox turns into dropping
 * them and letting the session go; the other sessions of the batch are written.
 */
export class OwnedAppends implements EventStore {
  /** Appends on their way, by session: a deletion waits for them (see `deleteSession`). */
  readonly #appending = new Map<string, Set<Promise<void>>>();
  /** Sessions being deleted: their appends are refused as lost from now on (the core drops those events). */
  readonly #deleting = new Set<string>();
  /** Appends Redis refused FENCED (another node's epoch): nothing of them was written. */
  #fenced = 0;

  constructor(
    readonly inner: ClusterLog,
    private readonly ownership: Ownership,
  ) {}

  /** The index of corrections, kept by the log's store. */
  get corrections(): StoredCorrections {
    return this.inner.corrections;
  }

  get fencedAppends(): number {
    return this.#fenced;
  }

  async createSession(record: SessionRecord): Promise<void> {
    await this.inner.createSession(record);
    const claim = await this.ownership.claim(record.info.sessionId);
    if (!claim.here) throw new EventStoreError('FENCED', `Session ${record.info.sessionId} was taken by node ${claim.holder.nodeId} as it was created.`);
  }

  async appendBatch(batch: AppendBatch): Promise<void> {
    const parts = bySession(batch);
    const appending = this.#append(parts);
    for (const sessionId of parts.keys()) {
      let calls = this.#appending.get(sessionId);
      if (calls === undefined) this.#appending.set(sessionId, (calls = new Set()));
      calls.add(appending);
    }
    try {
      await appending;
    } finally {
      for (const sessionId of parts.keys()) {
        const calls = this.#appending.get(sessionId);
        calls?.delete(appending);
        if (calls?.size === 0) this.#appending.delete(sessionId);
      }
    }
  }

  /**
   * Every append of the session already on its way lands first, and is reported back to the core
   * as written, before the session is deleted: the core announces `session.deleted` right after
   * the last seq it knows written, and each of those batches was published to every viewer as it
   * was written (a deletion that overtook one reused a seq they had, and every node dropped it).
   * The core notes a write a few microtasks after its append resolves, well before the deletion's
   * own reply comes back from Redis.
   */
  async deleteSession(sessionId: string): Promise<void> {
    this.#deleting.add(sessionId);
    try {
      await Promise.allSettled([...(this.#appending.get(sessionId) ?? [])]);
      await this.inner.deleteSession(sessionId);
    } finally {
      this.#deleting.delete(sessionId);
    }
  }

  /**
   * The held sessions' parts go to the log together, as one append (one script call on Redis,
   * one transaction on Postgres: a call per session cost a round trip each); each session's
   * outcome is its own.
   */
  async #append(parts: ReturnType<typeof bySession>): Promise<void> {
    const lost: string[] = [];
    const held = { events: [] as SessionEvent[], frames: [] as string[], summaries: [] as SessionInfo[], corrections: [] as IndexedCorrection[] };
    for (const [sessionId, part] of parts) {
      if (!this.ownership.holds(sessionId) || this.#deleting.has(sessionId)) {
        lost.push(sessionId);
        continue;
      }
      held.events.push(...part.events);
      held.frames.push(...part.frames);
      held.summaries.push(...part.summaries);
      held.corrections.push(...part.corrections);
    }
    const failures: unknown[] = [];
    if (held.events.length > 0 || held.summaries.length > 0) {
      for (const [sessionId, result] of await this.inner.appendSessions(held)) {
        if (result.status === 'fulfilled') continue;
        const error: unknown = result.reason;
        if (error instanceof EventStoreError && error.code === 'FENCED') {
          this.#fenced += 1;
          lost.push(sessionId);
        } else {
          failures.push(error);
        }
      }
    }
    if (failures.length > 0) throw failures[0];
    if (lost.length > 0) throw new SessionsFencedError(lost);
  }

  updateSession(info: SessionInfo): Promise<void> {
    return this.inner.updateSession(info);
  }
  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.inner.getSession(sessionId);
  }
  listSessionsByStatus(status: SessionStatus): Promise<SessionRecord[]> {
    return this.inner.listSessionsByStatus(status);
  }
  listSessions(options: { limit: number; before?: string; ownerId?: string }): Promise<SessionPage> {
    return this.inner.listSessions(options);
  }

  sharingKey(): Promise<string> {
    return this.inner.sharingKey();
  }
  readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<SessionEvent[]> {
    return this.inner.readEvents(sessionId, afterSeq, limit);
  }
  readEventFrames(sessionId: string, afterSeq: number, limit?: number): Promise<string[]> {
    return this.inner.readEventFrames(sessionId, afterSeq, limit);
  }
  firstKeptSeq(sessionId: string): Promise<number | undefined> {
    return this.inner.firstKeptSeq(sessionId);
  }
  readSnapshot(sessionId: string): Promise<SessionSnapshotData | undefined> {
    return this.inner.readSnapshot(sessionId);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
