import type { CorrectionIndex, IndexedCorrection } from './correction-index.js';

/**
 * A store's own correction index: read as a `CorrectionIndex`; written by the store itself with
 * each batch's `corrections` (`AppendBatch`) and emptied of a session when it is deleted. What the
 * start-up rebuild needs on top (PROTOCOL.md §26: a store from before the index has none yet).
 */
export interface StoredCorrections extends CorrectionIndex {
  /** Whether the index covers the whole log (false for a database from before it). */
  isBuilt(): Promise<boolean>;
  /** Records the rebuild found; writing one again replaces it (a rebuild cut short is simply run again). */
  putRebuilt(records: readonly IndexedCorrection[]): Promise<void>;
  /** The rebuild went through every session: from now on the appends keep the index. */
  markBuilt(): Promise<void>;
}
