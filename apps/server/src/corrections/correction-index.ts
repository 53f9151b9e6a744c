import type { CorrectionFilter, CorrectionPage, CorrectionRecord } from '@interthought/protocol';

/**
 * The index of corrections (PROTOCOL.md §26): one record a correction, kept by the store next to
 * the events that made it, so listing and exporting never scan every session's log.
 */

/**
 * Whose corrections a reader may see (§26.2): every one (an admin, or a server without users), or
 * those of the sessions a user owns plus the sessions named (an editor's share link).
 */
export type CorrectionVisibility =
  | { readonly all: true }
  | {
      readonly all: false;
      /** The reader's user id: the sessions they own. Absent: none by ownership. */
      readonly ownerId?: string | undefined;
      /** Further sessions the reader may see (shared with them as editor). */
      readonly sessionIds?: readonly string[] | undefined;
    };

/** One question to the index: the §26.2 filters, whose corrections, and which page. */
export interface CorrectionQuery {
  readonly filter: CorrectionFilter;
  readonly visibility: CorrectionVisibility;
  /** Leave this session's corrections out (lessons: the run's own session, §26.4). */
  readonly excludeSession?: string | undefined;
  /** 1–100. */
  readonly limit: number;
  /** The previous page's `nextCursor`. */
  readonly before?: string | undefined;
}

/** What the index keeps of a correction: its record, and the owner of its session (for visibility). */
export interface IndexedCorrection {
  readonly record: CorrectionRecord;
  /** `SessionInfo.owner.id` of the corrected session, when it has an owner. */
  readonly ownerId?: string | undefined;
}

/**
 * The read side of the index. The write side belongs to the stores: a batch's corrections are
 * written with its events (`AppendBatch.corrections`), and deleting a session deletes them.
 */
export interface CorrectionIndex {
  /** The matching corrections, newest first (`at`, then a stable tie-break), `limit` at most. */
  page(query: CorrectionQuery): Promise<CorrectionPage>;
}

/** A bad `before` cursor: the query is malformed (400 `BAD_REQUEST`). */
export class CorrectionCursorError extends Error {
  override readonly name = 'CorrectionCursorError';
}

/** Every matching correction, newest first, page by page (the export, lessons). */
export async function* allCorrections(index: CorrectionIndex, query: Omit<CorrectionQuery, 'limit' | 'before'>, pageSize = 100): AsyncGenerator<CorrectionRecord> {
  let before: string | undefined;
  for (;;) {
    const page = await index.page({ ...query, limit: pageSize, before });
    yield* page.corrections;
    if (page.nextCursor === undefined) return;
    before = page.nextCursor;
  }
}
