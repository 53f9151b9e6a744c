import type { RedisEventStore } from '../../src/cluster/redis-event-store.js';
import { describeStoreContract, typedRefusals } from '../store/contract/store-contract.js';
import { redisPerFile } from './redis-fixtures.js';

/** The retention the contract's retaining stores get: trimmed back to KEEP once over KEEP + KEEP / 4. */
const KEEP = 8;

const redis = redisPerFile();

describeStoreContract<RedisEventStore>('RedisEventStore', {
  open: ({ retained = false } = {}) => redis.openStore({ retainEventsPerSession: retained ? KEEP : 'all' }),
  retention: { mostKept: KEEP + KEEP / 4, keptAfterTrim: KEEP },
  // Another node: a second store on the same Redis, while the first stays open.
  // (Once the first store's trims have landed: it trims behind its appends.)
  reopen: async (first) => {
    await first.settled();
    return redis.openStore({ retainEventsPerSession: KEEP });
  },
  // A gap against the stored log is told by the append script (the stored lastSeq); one within
  // the batch is refused before Redis is asked, naming both seqs.
  expectRefusal: typedRefusals(
    ({ sessionId, after, got }) =>
      new RegExp(`^Session ${sessionId}\\b.*(stored lastSeq is ${after}\\b|event seq ${got} does not follow seq ${after} in the batch)`),
  ),
  differences: {
    identicalCreate: 'accepted',
    repeatedBatch: 'accepted',
    batchWithUnknownSession: 'the known sessions',
    readsWhenClosed: 'refused',
    sessionOrder: 'createdAt, then id',
    badLimits: 'refused',
    warnsOfUnfoldableLog: true,
  },
});
