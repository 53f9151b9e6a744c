import type { CorrectionPage } from '@interthought/protocol';
import type { Redis } from 'ioredis';
import type { CorrectionQuery, IndexedCorrection } from '../corrections/correction-index.js';
import { decodeCorrectionCursor, encodeCorrectionCursor, matchesQuery, orderKey } from '../corrections/correction-order.js';
import type { StoredCorrections } from '../corrections/stored-corrections.js';
import { CORRECTIONS_BUILT_KEY, CORRECTIONS_KEY, sessionCorrectionsKey } from './redis-keys.js';

/** Order keys read from the sorted set per round trip of a page. */
const SCAN_CHUNK = 200;

/** The session and step an order key names (`<at>\0<sessionId>\0<correctedStepId>`). */
function partsOf(key: string): { sessionId: string; correctedStepId: string } {
  const [, sessionId = '', correctedStepId = ''] = key.split('\0');
  return { sessionId, correctedStepId };
}

/**
 * What the append script writes into the index for one correction (see `INDEX_CORRECTIONS` in
 * `redis-scripts.ts`): the hash field, the record, its order key.
 */
export function correctionTriple(indexed: IndexedCorrection): [field: string, record: string, orderKey: string] {
  return [indexed.record.correctedStepId, JSON.stringify(indexed), orderKey(indexed.record)];
}

/**
 * The cluster's index of corrections in Redis: each session's records in a hash next to its other
 * keys, and one sorted set of their order keys that every node pages newest first. The append
 * script writes a batch's corrections in the same step as its events (the same records again on a
 * retried batch: a replace); the delete script empties a session's with its other keys.
 */
export class RedisCorrections implements StoredCorrections {
  constructor(private readonly redis: Redis) {}

  /** The order keys of a session's indexed corrections: what its deletion takes out of the sorted set. */
  async orderKeysOf(sessionId: string): Promise<string[]> {
    const stored = await this.redis.hvals(sessionCorrectionsKey(sessionId));
    return stored.map((json) => orderKey((JSON.parse(json) as IndexedCorrection).record));
  }

  async page(query: CorrectionQuery): Promise<CorrectionPage> {
    let max = query.before === undefined ? '+' : `(${decodeCorrectionCursor(query.before)}`;
    const found: IndexedCorrection[] = [];
    let lastKey: string | undefined;
    for (;;) {
      const keys = await this.redis.zrevrangebylex(CORRECTIONS_KEY, max, '-', 'LIMIT', 0, SCAN_CHUNK);
      if (keys.length === 0) break;
      const read = this.redis.pipeline();
      for (const key of keys) {
        const { sessionId, correctedStepId } = partsOf(key);
        read.hget(sessionCorrectionsKey(sessionId), correctedStepId);
      }
      const replies = (await read.exec()) ?? [];
      for (const [index, key] of keys.entries()) {
        const json = replies[index]?.[1];
        // A key whose session was deleted meanwhile has no record any more.
        if (typeof json !== 'string') continue;
        const indexed = JSON.parse(json) as IndexedCorrection;
        if (!matchesQuery(indexed, query)) continue;
        if (found.length === query.limit) {
          const corrections = found.map((entry) => entry.record);
          return lastKey === undefined ? { corrections } : { corrections, nextCursor: encodeCorrectionCursor(lastKey) };
        }
        found.push(indexed);
        lastKey = key;
      }
      if (keys.length < SCAN_CHUNK) break;
      max = `(${keys[keys.length - 1]!}`;
    }
    return { corrections: found.map((entry) => entry.record) };
  }

  async isBuilt(): Promise<boolean> {
    return (await this.redis.exists(CORRECTIONS_BUILT_KEY)) === 1;
  }

  async putRebuilt(records: readonly IndexedCorrection[]): Promise<void> {
    if (records.length === 0) return;
    const multi = this.redis.multi();
    for (const indexed of records) {
      const [field, record, key] = correctionTriple(indexed);
      multi.hset(sessionCorrectionsKey(indexed.record.sessionId), field, record);
      multi.zadd(CORRECTIONS_KEY, 0, key);
    }
    await multi.exec();
  }

  async markBuilt(): Promise<void> {
    await this.redis.set(CORRECTIONS_BUILT_KEY, new Date().toISOString());
  }
}
