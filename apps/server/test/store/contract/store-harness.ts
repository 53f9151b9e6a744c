import type { SessionInfo } from '@interthought/protocol';
import { expect } from 'vitest';
import type { EventStore } from '../../../src/core/persistence/event-store.js';
import { EventStoreError } from '../../../src/core/persistence/event-store.js';

/**
 * A refusal the contract provokes, with what the store must say about it. Each store words it
 * its own way (see `StoreHarness.expectRefusal`), but every store names the session and the seqs.
 */
export type Refusal =
  | { code: 'SESSION_NOT_FOUND' | 'SESSION_EXISTS'; sessionId: string }
  /** The batch brought seq `got` where the session's log (stored or earlier in the batch) ended at `after`. */
  | { code: 'SEQ_NOT_CONTIGUOUS'; sessionId: string; after: number; got: number }
  | { code: 'STORE_CLOSED' };

/** How the retention limit a harness opens its stores with shows in a session's log. */
export interface RetentionShape {
  /** The longest a log grows before it is trimmed. */
  mostKept: number;
  /** How many events a trim keeps. */
  keptAfterTrim: number;
}

/**
 * Where the stores may answer the same call differently; the contract checks each store against
 * what its harness declares here.
 */
export interface StoreDifferences {
  /** A `createSession` repeating the stored record exactly (Redis takes it for a resend of the same create). */
  identicalCreate: 'accepted' | 'refused';
  /** A batch repeating stored events exactly (Redis takes it for the core's retry of a batch it wrote). */
  repeatedBatch: 'accepted' | 'refused';
  /** What a batch naming an unknown session writes of its other sessions (Redis writes each session on its own). */
  batchWithUnknownSession: 'nothing' | 'the known sessions';
  /** Whether reads still answer once the store is closed (the in-memory store has nothing to release). */
  readsWhenClosed: 'refused' | 'answered';
  /** How sessions are ordered, in both lists: by `createdAt` and then id, or by creation (the in-memory store). */
  sessionOrder: 'createdAt, then id' | 'creation';
  /** Whether a negative or fractional `limit` is refused with BAD_LIMIT (the in-memory store does not check it). */
  badLimits: 'refused' | 'not checked';
  /** Whether the store warns (INTERTHOUGHT_RETENTION) when a log it must trim does not fold. */
  warnsOfUnfoldableLog: boolean;
}

/** What the contract needs of a store implementation: fresh stores, and how it differs from the others. */
export interface StoreHarness<S extends EventStore = EventStore> {
  /** A new, empty store, closed after the test; `retained` opens it with the harness's retention limit. */
  open(options?: { retained?: boolean }): Promise<S>;
  /** How that retention limit shows. */
  readonly retention: RetentionShape;
  /**
   * Another store over what `store` wrote, as a restart (SQLite) or another node (Redis) opens it;
   * absent for a store whose contents die with it.
   */
  readonly reopen?: (store: S) => Promise<S>;
  /** Expect `call` to be refused as `refusal` says, in the store's own words. */
  expectRefusal(call: Promise<unknown>, refusal: Refusal): Promise<void>;
  readonly differences: StoreDifferences;
}

type SeqRefusal = Extract<Refusal, { code: 'SEQ_NOT_CONTIGUOUS' }>;

/**
 * `expectRefusal` for the stores that refuse with a typed `EventStoreError` (SQLite, Redis): its
 * class and code, and a message that names the session, or for a seq refusal says what
 * `seqWording` expects.
 */
export function typedRefusals(seqWording: (refusal: SeqRefusal) => RegExp): StoreHarness['expectRefusal'] {
  const wording = (refusal: Refusal): RegExp => {
    switch (refusal.code) {
      case 'SEQ_NOT_CONTIGUOUS':
        return seqWording(refusal);
      case 'STORE_CLOSED':
        return /is closed/;
      default:
        return new RegExp(`^Session ${refusal.sessionId} `);
    }
  };
  return async (call, refusal) => {
    const error = await call.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(EventStoreError);
    expect(error).toMatchObject({ name: 'EventStoreError', code: refusal.code });
    expect((error as Error).message).toMatch(wording(refusal));
  };
}

/** The ids of `created` (given in creation order) newest first, in the order the store lists them. */
export function newestFirst(created: readonly SessionInfo[], order: StoreDifferences['sessionOrder']): string[] {
  // Plain code-unit comparison, as SQLite's BINARY collation and Redis' lexicographic ranges compare.
  const descending = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);
  const listed =
    order === 'creation'
      ? [...created].reverse()
      : [...created].sort((a, b) => descending(a.createdAt, b.createdAt) || descending(a.sessionId, b.sessionId));
  return listed.map((info) => info.sessionId);
}
