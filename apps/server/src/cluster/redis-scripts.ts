import type { Redis } from 'ioredis';

/**
 * The Lua scripts of cluster mode, each one atomic step on Redis. Refusals are error replies whose
 * first word is the code (`SESSION_NOT_FOUND`, `FENCED` …), mapped to typed errors by
 * `redis-store-errors.ts`.
 *
 * The session's own keys share a slot; `it:sessions`, `it:by-status` and `it:active` do not. That
 * is fine on one Redis (with replicas or Sentinel); on Redis Cluster the writes of those shared
 * indexes would have to leave the scripts (see the README's cluster notes).
 */

/** Keeps the status index in step with the stored summary. KEYS: meta, byStatus. */
const SET_SUMMARY = `
local function set_summary(meta, by_status, info, status)
  redis.call('HSET', meta, 'info', info)
  local stored = redis.call('HMGET', meta, 'status', 'entry')
  if stored[1] ~= status and stored[2] then
    if stored[1] then redis.call('ZREM', by_status, stored[1] .. '\\0' .. stored[2]) end
    redis.call('ZADD', by_status, 0, status .. '\\0' .. stored[2])
    redis.call('HSET', meta, 'status', status)
  end
end
`;

/**
 * KEYS: meta, sessions, byStatus. ARGV: info, options, lastSeq, status, entry. A create resent
 * after a lost reply finds its own record and succeeds again.
 */
const CREATE_SESSION = `
local meta = KEYS[1]
local stored = redis.call('HMGET', meta, 'info', 'options')
if stored[1] then
  if stored[1] == ARGV[1] and stored[2] == ARGV[2] then return 0 end
  return redis.error_reply('SESSION_EXISTS')
end
redis.call('HSET', meta, 'info', ARGV[1], 'options', ARGV[2], 'lastSeq', ARGV[3], 'epoch', 0, 'status', ARGV[4], 'entry', ARGV[5])
redis.call('ZADD', KEYS[2], 0, ARGV[5])
redis.call('ZADD', KEYS[3], 0, ARGV[4] .. '\\0' .. ARGV[5])
return 1
`;

/** KEYS: meta, byStatus. ARGV: info, status. */
const UPDATE_SESSION = `${SET_SUMMARY}
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('SESSION_NOT_FOUND') end
set_summary(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
return 1
`;

/**
 * KEYS: meta, log, byStatus. ARGV: epoch ('' = unfenced), expectedLastSeq, batchId, summary info
 * ('' = none), summary status, channel, frames… Returns {lastSeq, firstSeq} after the append.
 *
 * Order of the checks: unknown session; wrong epoch (FENCED: another node took the session
 * over); the batch id of the last applied batch (a resend after a lost reply: nothing to do);
 * then contiguity. A batch that starts before the stored lastSeq is accepted when its events up
 * to lastSeq are byte-identical to the stored ones (the core retries a failed batch with what
 * queued meanwhile appended to it, so a batch whose reply was lost comes back as a superset):
 * only the rest is written and published. Anything else is SEQ_NOT_CONTIGUOUS.
 */
const APPEND = `${SET_SUMMARY}
local FRAMES = 7
local meta, log = KEYS[1], KEYS[2]
local stored = redis.call('HMGET', meta, 'epoch', 'lastSeq', 'lastBatch', 'firstSeq')
if not stored[2] then return redis.error_reply('SESSION_NOT_FOUND') end
if ARGV[1] ~= '' and stored[1] ~= ARGV[1] then
  return redis.error_reply('FENCED session epoch is ' .. tostring(stored[1]) .. ', the writer holds ' .. ARGV[1])
end
local last = tonumber(stored[2])
local first = tonumber(stored[4] or '0')
local count = #ARGV - FRAMES + 1
if count > 0 and stored[3] == ARGV[3] then return {last, first} end
local expected = tonumber(ARGV[2])
local skip = 0
if count > 0 and expected ~= last then
  if expected > last then return redis.error_reply('SEQ_NOT_CONTIGUOUS stored lastSeq is ' .. last) end
  skip = math.min(last - expected, count)
  local kept = redis.call('XRANGE', log, string.format('%d-0', expected + 1), string.format('%d-0', expected + skip))
  if #kept ~= skip then return redis.error_reply('SEQ_NOT_CONTIGUOUS stored lastSeq is ' .. last) end
  for i = 1, skip do
    if kept[i][2][2] ~= ARGV[FRAMES + i - 1] then
      return redis.error_reply('SEQ_NOT_CONTIGUOUS stored lastSeq is ' .. last .. ' and seq ' .. (expected + i) .. ' differs')
    end
  end
end
if skip < count then
  for i = skip + 1, count do
    redis.call('XADD', log, string.format('%d-0', expected + i), 'f', ARGV[FRAMES + i - 1])
  end
  if first == 0 then first = expected + skip + 1 end
  last = expected + count
  redis.call('HSET', meta, 'lastSeq', last, 'firstSeq', first, 'lastBatch', ARGV[3])
  redis.call('SPUBLISH', ARGV[6], string.format('%d', expected + skip + 1) .. '\\n' .. table.concat(ARGV, '\\n', FRAMES + skip, #ARGV))
end
if ARGV[4] ~= '' then set_summary(meta, KEYS[3], ARGV[4], ARGV[5]) end
return {last, first}
`;

/**
 * KEYS: meta, log, snap. ARGV: expected firstSeq, throughSeq, snapshot. Retention's write: the
 * snapshot as of throughSeq, the events up to it dropped. Returns 0 without writing when the
 * session is gone or another trim moved firstSeq since the snapshot was folded.
 */
const TRIM = `
local first = redis.call('HGET', KEYS[1], 'firstSeq')
if not first or tonumber(first) ~= tonumber(ARGV[1]) then return 0 end
local keep_from = tonumber(ARGV[2]) + 1
redis.call('SET', KEYS[3], ARGV[3])
redis.call('XTRIM', KEYS[2], 'MINID', string.format('%d-0', keep_from))
redis.call('HSET', KEYS[1], 'firstSeq', keep_from)
return 1
`;

/** KEYS: meta, log, snap, lease, sessions, byStatus, active. ARGV: sessionId. */
const DELETE_SESSION = `
local stored = redis.call('HMGET', KEYS[1], 'entry', 'status')
if stored[1] then
  redis.call('ZREM', KEYS[5], stored[1])
  if stored[2] then redis.call('ZREM', KEYS[6], stored[2] .. '\\0' .. stored[1]) end
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('SREM', KEYS[7], ARGV[1])
return 1
`;

/**
 * KEYS: lease, meta. ARGV: nodeId, ttlMs. A missing lease is taken with the next epoch (the
 * fencing token); a lease this node already holds is kept, with its TTL extended (an acquire
 * resent after a lost reply). Returns {1, value} when ours, {0, holder's value} otherwise.
 */
const ACQUIRE_LEASE = `
local holder = redis.call('GET', KEYS[1])
if holder then
  local at = string.find(holder, ':[^:]*$')
  if at and string.sub(holder, 1, at - 1) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, holder}
  end
  return {0, holder}
end
if redis.call('EXISTS', KEYS[2]) == 0 then return redis.error_reply('SESSION_NOT_FOUND') end
local value = ARGV[1] .. ':' .. redis.call('HINCRBY', KEYS[2], 'epoch', 1)
redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
return {1, value}
`;

/** KEYS: lease. ARGV: value, ttlMs. 1 when the lease was still ours and is extended. */
const RENEW_LEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

/** KEYS: lease. ARGV: value. 1 when the lease was still ours and is gone. */
const RELEASE_LEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

const DEFINITIONS = {
  itCreateSession: { numberOfKeys: 3, lua: CREATE_SESSION },
  itUpdateSession: { numberOfKeys: 2, lua: UPDATE_SESSION },
  itAppend: { numberOfKeys: 3, lua: APPEND },
  itTrim: { numberOfKeys: 3, lua: TRIM },
  itDeleteSession: { numberOfKeys: 7, lua: DELETE_SESSION },
  itAcquireLease: { numberOfKeys: 2, lua: ACQUIRE_LEASE },
  itRenewLease: { numberOfKeys: 1, lua: RENEW_LEASE },
  itReleaseLease: { numberOfKeys: 1, lua: RELEASE_LEASE },
} as const;

type ScriptName = keyof typeof DEFINITIONS;
type Arg = string | number;

/** The keys and arguments of one session's append script call (see `APPEND`). */
export interface AppendCall {
  keys: [meta: string, log: string, byStatus: string];
  args: [epoch: string, expectedLastSeq: number, batchId: string, summary: string, summaryStatus: string, channel: string, ...frames: string[]];
}

/** What one append script call answered: {lastSeq, firstSeq} after the append. */
export type AppendReply = [lastSeq: number, firstSeq: number];

/** The scripts as typed calls: keys first, then arguments, in the orders documented above. */
export interface ClusterScripts {
  createSession(keys: [meta: string, sessions: string, byStatus: string], args: [info: string, options: string, lastSeq: number, status: string, entry: string]): Promise<number>;
  updateSession(keys: [meta: string, byStatus: string], args: [info: string, status: string]): Promise<number>;
  append(keys: AppendCall['keys'], args: AppendCall['args']): Promise<AppendReply>;
  /**
   * Several sessions' appends written to Redis in one go (a pipeline: one write, one read of the
   * replies), each still its own atomic script call; settled per call, in order.
   */
  appendEach(calls: readonly AppendCall[]): Promise<PromiseSettledResult<AppendReply>[]>;
  trim(keys: [meta: string, log: string, snap: string], args: [expectedFirstSeq: number, throughSeq: number, snapshot: string]): Promise<number>;
  deleteSession(
    keys: [meta: string, log: string, snap: string, lease: string, sessions: string, byStatus: string, active: string],
    args: [sessionId: string],
  ): Promise<number>;
  acquireLease(keys: [lease: string, meta: string], args: [nodeId: string, ttlMs: number]): Promise<[ours: 0 | 1, value: string]>;
  renewLease(keys: [lease: string], args: [value: string, ttlMs: number]): Promise<number>;
  releaseLease(keys: [lease: string], args: [value: string]): Promise<number>;
}

/**
 * Define the scripts on `redis` (`defineCommand`: EVALSHA, falling back to EVAL when Redis lost
 * its script cache, e.g. after a restart) and return them as typed calls.
 */
export function defineClusterScripts(redis: Redis): ClusterScripts {
  for (const [name, definition] of Object.entries(DEFINITIONS)) redis.defineCommand(name, definition);
  // defineCommand adds methods ioredis' types cannot know of. Arguments are passed as arrays
  // (ioredis flattens them), never spread: a batch may hold more frames than a call has room for.
  const commands = redis as unknown as Record<ScriptName, (keys: readonly Arg[], args: readonly Arg[]) => Promise<unknown>>;
  const call =
    <R>(name: ScriptName) =>
    (keys: readonly Arg[], args: readonly Arg[]): Promise<R> =>
      commands[name](keys, args) as Promise<R>;
  const append = call<AppendReply>('itAppend');
  return {
    createSession: call('itCreateSession'),
    updateSession: call('itUpdateSession'),
    append,
    appendEach: (calls) => (calls.length === 1 ? Promise.allSettled([append(calls[0]!.keys, calls[0]!.args)]) : appendPipelined(redis, calls)),
    trim: call('itTrim'),
    deleteSession: call('itDeleteSession'),
    acquireLease: call('itAcquireLease'),
    renewLease: call('itRenewLease'),
    releaseLease: call('itReleaseLease'),
  };
}

/**
 * The append calls as one pipeline. Sent one by one, each session's call was a write of its own
 * on the socket (a syscall here, a wake-up and a read in Redis, a reply write back): a batch of
 * ten sessions cost ten of each. ioredis resends a pipeline's unanswered commands after a
 * reconnect like any other, and each script recognises a resent batch by its id.
 */
async function appendPipelined(redis: Redis, calls: readonly AppendCall[]): Promise<PromiseSettledResult<AppendReply>[]> {
  // The pipeline carries the scripts defined on the client, which ioredis' types cannot know of.
  const pipeline = redis.pipeline() as unknown as Record<'itAppend', (keys: readonly Arg[], args: readonly Arg[]) => void> & {
    exec(): Promise<[error: Error | null, reply: unknown][] | null>;
  };
  for (const { keys, args } of calls) pipeline.itAppend(keys, args);
  let replies: [error: Error | null, reply: unknown][] | null;
  try {
    replies = await pipeline.exec();
  } catch (error) {
    // The whole pipeline failed (the connection gave up): every call failed with it.
    return calls.map(() => ({ status: 'rejected', reason: error }));
  }
  return calls.map((_, index) => {
    const [error, reply] = replies?.[index] ?? [new Error('Redis gave no reply to the append'), undefined];
    return error ? { status: 'rejected', reason: error } : { status: 'fulfilled', value: reply as AppendReply };
  });
}
