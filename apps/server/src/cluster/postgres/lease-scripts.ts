import type { Redis } from 'ioredis';
import { sessionKeys } from '../redis-keys.js';

/**
 * The lease scripts of a cluster whose log is in Postgres. The lease is the Redis-only mode's
 * `it:{S}:lease` = `<nodeId>:<epoch>`; there is no meta hash in Redis now, so the epoch counter
 * is a key of its own, `it:{S}:epoch` (same hash slot), and it is only a hint: Postgres'
 * `sessions.epoch` is the fence (see `postgres-leases.ts`).
 */
export function leaseKeys(sessionId: string): { lease: string; counter: string } {
  return { lease: sessionKeys(sessionId).lease, counter: `it:{${sessionId}}:epoch` };
}

/**
 * KEYS: lease, counter. ARGV: nodeId, ttlMs, floor (the session's epoch as Postgres has it).
 * Ours already: TTL extended, {1, value, 0}. Another node's: {0, value, 0}. Missing: taken with
 * epoch max(INCR(counter), floor + 1), {1, value, 1}. The floor keeps epochs growing when the
 * counter restarted (Redis flushed, or restarted without persistence).
 */
export const ACQUIRE_WITH_FLOOR = `
local holder = redis.call('GET', KEYS[1])
if holder then
  local at = string.find(holder, ':[^:]*$')
  if at and string.sub(holder, 1, at - 1) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, holder, 0}
  end
  return {0, holder, 0}
end
local epoch = redis.call('INCR', KEYS[2])
local floor = tonumber(ARGV[3])
if epoch <= floor then
  epoch = floor + 1
  redis.call('SET', KEYS[2], epoch)
end
local value = ARGV[1] .. ':' .. string.format('%d', epoch)
redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
return {1, value, 1}
`;

/**
 * KEYS: lease, counter. ARGV: value, ttlMs, epoch. Ours: TTL extended, 1. Missing (Redis lost
 * it): set again to our value (SET NX) with the counter raised to at least our epoch, 2.
 * Another node's: 0.
 */
export const RENEW_OR_RECREATE = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX')
local counter = tonumber(redis.call('GET', KEYS[2]) or '0')
if counter < tonumber(ARGV[3]) then redis.call('SET', KEYS[2], ARGV[3]) end
return 2
`;

/** KEYS: lease. ARGV: value. 1 when the lease was still ours and is gone. */
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

export interface FloorLeaseScripts {
  acquire(sessionId: string, nodeId: string, ttlMs: number, floor: number): Promise<[ours: 0 | 1, value: string, taken: 0 | 1]>;
  renewOrRecreate(sessionId: string, value: string, ttlMs: number, epoch: number): Promise<0 | 1 | 2>;
  release(sessionId: string, value: string): Promise<0 | 1>;
}

type Call = (...args: Array<string | number>) => Promise<unknown>;

/** Define the scripts on `redis` (EVALSHA, falling back to EVAL after a restart lost the cache). */
export function defineFloorLeaseScripts(redis: Redis): FloorLeaseScripts {
  redis.defineCommand('itPgAcquireLease', { numberOfKeys: 2, lua: ACQUIRE_WITH_FLOOR });
  redis.defineCommand('itPgRenewLease', { numberOfKeys: 2, lua: RENEW_OR_RECREATE });
  redis.defineCommand('itPgReleaseLease', { numberOfKeys: 1, lua: RELEASE });
  // defineCommand adds methods ioredis' types cannot know of.
  const commands = redis as unknown as Record<'itPgAcquireLease' | 'itPgRenewLease' | 'itPgReleaseLease', Call>;
  return {
    acquire: (sessionId, nodeId, ttlMs, floor) => {
      const keys = leaseKeys(sessionId);
      return commands.itPgAcquireLease(keys.lease, keys.counter, nodeId, ttlMs, floor) as Promise<[0 | 1, string, 0 | 1]>;
    },
    renewOrRecreate: (sessionId, value, ttlMs, epoch) => {
      const keys = leaseKeys(sessionId);
      return commands.itPgRenewLease(keys.lease, keys.counter, value, ttlMs, epoch) as Promise<0 | 1 | 2>;
    },
    release: (sessionId, value) => commands.itPgReleaseLease(leaseKeys(sessionId).lease, value) as Promise<0 | 1>,
  };
}
