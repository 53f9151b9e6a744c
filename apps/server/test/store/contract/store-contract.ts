import type { EventStore } from '../../../src/core/persistence/event-store.js';
import { describeAppends } from './appends.contract.js';
import { describeCorrections } from './corrections.contract.js';
import { describeRetention } from './retention.contract.js';
import { describeOwners } from './owners.contract.js';
import { describeSessionListing } from './session-listing.contract.js';
import { describeSessionRecords } from './session-records.contract.js';
import type { StoreHarness } from './store-harness.js';

export type { Refusal, RetentionShape, StoreDifferences, StoreHarness } from './store-harness.js';
export { typedRefusals } from './store-harness.js';

/**
 * The `EventStore` contract every store implementation is held to, run against the stores
 * `harness` opens: records, lists, appends and reads, retention, owners, the corrections index. A store's own test files keep
 * only what is its alone (SQLite's file and lock, Redis' fencing and key layout …).
 */
export function describeStoreContract<S extends EventStore>(name: string, harness: StoreHarness<S>): void {
  describeSessionRecords(name, harness);
  describeSessionListing(name, harness);
  describeAppends(name, harness);
  describeRetention(name, harness);
  describeOwners(name, harness);
  describeCorrections(name, harness);
}
