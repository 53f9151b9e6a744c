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
 * The cluster's index of corrections in Redis: each session's records in a hash next to its other
 * keys, and one sorted set of their order keys that every node pages newest first. Written after
 * each session's append lands (the same records again on a retried batch: a replace), emptied with
 * its deletion.
 */
export class RedisCorrections implements StoredCorrections {
  constructor(private readonly redis: Redis) {}

  async write(records: readonly IndexedCorrection[]): Promise<void> {
    if (records.length === 0) return;
    const multi = this.redis.multi();
    for (const indexed of records) {
      const { record } = indexed;
      multi.hset(sessionCorrectionsKey(record.sessionId), record.correctedStepId, JSON.stringify(indexed));
      multi.zadd(CORRECTIONS_KEY, 0, orderKey(record));
    }
    await multi.exec();
  }

  async removeSession(sessionId: string): Promise<void> {
    const key = sessionCorrectionsKey(sessionId);
    const stored = await this.redis.hvals(key);
    const keys = stored.map((json) => orderKey((JSON.parse(json) as IndexedCorrection).record));
    const multi = this.redis.multi();
    if (keys.length > 0) multi.zrem(CORRECTIONS_KEY, ...keys);
    multi.del(key);
    await multi.exec();
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
    await this.write(records);
  }

  async markBuilt(): Promise<void> {
    await this.redis.set(CORRECTIONS_BUILT_KEY, new Date().toISOString());
  }
}
