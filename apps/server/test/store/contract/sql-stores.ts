import { typedRefusals, type StoreDifferences, type StoreHarness } from './store-harness.js';

/*
 * What the two SQL stores (SQLite and Postgres) answer alike in the contract: one wording of a seq
 * refusal (it names both seqs, whether the gap is against the stored log or within the batch) and
 * one set of behaviours where stores may differ.
 */

export const sqlStoreRefusals: StoreHarness['expectRefusal'] = typedRefusals(
  ({ sessionId, after, got }) => new RegExp(`^Session ${sessionId}: event seq ${got} does not follow seq ${after}; the batch was not written\\.`),
);

export const SQL_STORE_DIFFERENCES: StoreDifferences = {
  identicalCreate: 'refused',
  repeatedBatch: 'refused',
  batchWithUnknownSession: 'nothing',
  readsWhenClosed: 'refused',
  sessionOrder: 'createdAt, then id',
  badLimits: 'refused',
  warnsOfUnfoldableLog: true,
};
