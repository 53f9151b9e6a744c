import type { Redis } from 'ioredis';

/**
 * The Lua scripts of cluster mode, each one atomic step on Redis. Refusals are error replies whose
 * first word is the code (`SESSION_NOT_FOUND`, `FENCED` …), mapped to typed errors by
 * `redis-store-errors.ts`.
 *
 * The session's own keys share a slot; `it:sessions`, `it:by-status`, `it:active`, `it:corrections` and
 * the owners' lists (`it:owner:<id>:sessions`) do not. That
 * is fine on one Redis (with replicas or Sentinel); on Redis Cluster the writes of those shared
 * indexes would have to leave the scripts (see "What Redis must be set to" in docs/cluster.md).
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
 * KEYS: meta, sessions, byStatus, and the owner's list when the session has an owner. ARGV: info,
 * options, lastSeq, status, entry. The session is listed (under its owner too) in the step that
 * makes it. A create resent after a lost reply finds its own record and succeeds again.
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
if KEYS[4] then redis.call('ZADD', KEYS[4], 0, ARGV[5]) end
return 1
`;

/** KEYS: meta, byStatus. ARGV: info, status. */
const UPDATE_SESSION = `${SET_SUMMARY}
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('SESSION_NOT_FOUND') end
set_summary(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
return 1
`;

/**
 * Puts a batch's corrections into the index (see `RedisCorrections`): ARGV[from..] holds `count`
 * triples of corrected step id, indexed record (JSON) and order key. A replace, so a retried
 * batch writes the same records again.
 */
const INDEX_CORRECTIONS = `
local function index_corrections(session_corrections, corrections, from, count)
  for i = 0, count - 1 do
    local at = from + 3 * i
    redis.call('HSET', session_corrections, ARGV[at], ARGV[at + 1])
    redis.call('ZADD', corrections, 0, ARGV[at + 2])
  end
end
`;

/**
 * One session's append, shared by `APPEND` and `APPEND_MANY`: the frames are ARGV[from..to], the
 * corrections they make `corrections_count` triples from ARGV[corrections_from] (see
 * `INDEX_CORRECTIONS`), written into the index in the same step as the events, so no crash can
 * leave a correction in the log that the index does not list.
 * Returns {lastSeq, firstSeq} after the append, or an error reply.
 *
 * Order of the checks: unknown session; wrong epoch (FENCED: another node took the session
 * over); the batch id of the last applied batch (a resend after a lost reply: nothing to do);
 * then contiguity. A batch that starts before the stored lastSeq is accepted when its events up
 * to lastSeq are byte-identical to the stored ones (the core retries a failed batch with what
 * queued meanwhile appended to it, so a batch whose reply was lost comes back as a superset):
 * only the rest is written and published. Anything else is SEQ_NOT_CONTIGUOUS.
 */
const APPEND_SESSION = `${SET_SUMMARY}${INDEX_CORRECTIONS}
local function append_session(meta, log, by_status, session_corrections, corrections, batch_id, epoch, expected_last, info, status, channel, corrections_from, corrections_count, from, to)
  local stored = redis.call('HMGET', meta, 'epoch', 'lastSeq', 'lastBatch', 'firstSeq')
  if not stored[2] then return redis.error_reply('SESSION_NOT_FOUND') end
  if epoch ~= '' and stored[1] ~= epoch then
    return redis.error_reply('FENCED session epoch is ' .. tostring(stored[1]) .. ', the writer holds ' .. epoch)
  end
  local last = tonumber(stored[2])
  local first = tonumber(stored[4] or '0')
  local count = to - from + 1
  if count > 0 and stored[3] == batch_id then return {last, first} end
  local expected = tonumber(expected_last)
  local skip = 0
  if count > 0 and expected ~= last then
    if expected > last then return redis.error_reply('SEQ_NOT_CONTIGUOUS stored lastSeq is ' .. last) end
    skip = math.min(last - expected, count)
    local kept = redis.call('XRANGE', log, string.format('%d-0', expected + 1), string.format('%d-0', expected + skip))
    if #kept ~= skip then return redis.error_reply('SEQ_NOT_CONTIGUOUS stored lastSeq is ' .. last) end
    for i = 1, skip do
      if kept[i][2][2] ~= ARGV[from + i - 1] then
        return redis.error_reply('SEQ_NOT_CONTIGUOUS stored lastSeq is ' .. last .. ' and seq ' .. (expected + i) .. ' differs')
      end
    end
  end
  if skip < count then
    for i = skip + 1, count do
      redis.call('XADD', log, string.format('%d-0', expected + i), 'f', ARGV[from + i - 1])
    end
    if first == 0 then first = expected + skip + 1 end
    last = expected + count
    redis.call('HSET', meta, 'lastSeq', last, 'firstSeq', first, 'lastBatch', batch_id)
    redis.call('SPUBLISH', channel, string.format('%d', expected + skip + 1) .. '\\n' .. table.concat(ARGV, '\\n', from + skip, to))
  end
  index_corrections(session_corrections, corrections, corrections_from, corrections_count)
  if info ~= '' then set_summary(meta, by_status, info, status) end
  return {last, first}
end
`;

/**
 * KEYS: meta, log, byStatus, the session's corrections, the corrections index. ARGV: epoch ('' =
 * unfenced), expectedLastSeq, batchId, summary info ('' = none), summary status, channel,
 * correction count, the corrections' triples, frames… Returns {lastSeq, firstSeq} after the
 * append (see `APPEND_SESSION`).
 */
const APPEND = `${APPEND_SESSION}
local corrections = tonumber(ARGV[7])
return append_session(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[3], ARGV[1], ARGV[2], ARGV[4], ARGV[5], ARGV[6], 8, corrections, 8 + 3 * corrections, #ARGV)
`;

/**
 * Several sessions' appends in one call, each as `APPEND` does it and atomic for its session; a
 * refused session does not stop the others. KEYS: byStatus, the corrections index, then meta, log
 * and corrections of each session. ARGV: batchId, then for each session in KEYS' order: epoch,
 * expectedLastSeq, summary info, summary status, channel, frame count, correction count, its
 * corrections' triples, its frames. Returns one entry per session, in order:
 * {lastSeq, firstSeq} or the session's error reply.
 *
 * One call instead of one per session: each call costs Redis its own script run and its own
 * MULTI … EXEC in the AOF, and the node the encoding of one command and the decoding of one reply
 * (a batch of five one-event sessions: 0.34 ms a round trip against 0.51 ms as five pipelined
 * calls, measured on this machine). The keys span slots, as the shared indexes already do (see
 * the top of this file): on Redis Cluster a batch would be split by slot.
 */
const APPEND_MANY = `${APPEND_SESSION}
local replies = {}
local at = 2
for session = 1, (#KEYS - 2) / 3 do
  local key = 3 * session
  local count = tonumber(ARGV[at + 5])
  local corrections = tonumber(ARGV[at + 6])
  local frames = at + 7 + 3 * corrections
  replies[session] = append_session(KEYS[key], KEYS[key + 1], KEYS[1], KEYS[key + 2], KEYS[2], ARGV[1], ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 4], at + 7, corrections, frames, frames + count - 1)
  at = frames + count
end
return replies
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

/**
 * KEYS: meta, log, snap, lease, sessions, byStatus, active, the session's corrections, the
 * corrections index, and the owner's list when the session has an owner. ARGV: sessionId, then
 * the order keys of the session's corrections (read before the call: the index's records are
 * JSON, and `orderKey` is the one definition of a key). Every list the session is on loses it here.
 */
const DELETE_SESSION = `
local stored = redis.call('HMGET', KEYS[1], 'entry', 'status')
if stored[1] then
  redis.call('ZREM', KEYS[5], stored[1])
  if KEYS[10] then redis.call('ZREM', KEYS[10], stored[1]) end
  if stored[2] then redis.call('ZREM', KEYS[6], stored[2] .. '\\0' .. stored[1]) end
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[8])
redis.call('SREM', KEYS[7], ARGV[1])
for i = 2, #ARGV do redis.call('ZREM', KEYS[9], ARGV[i]) end
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
  itCreateSession: { lua: CREATE_SESSION },
  itUpdateSession: { numberOfKeys: 2, lua: UPDATE_SESSION },
  itAppend: { numberOfKeys: 5, lua: APPEND },
  // The number of keys goes first in each call of these: it depends on the batch, or the session's owner.
  itAppendMany: { lua: APPEND_MANY },
  itTrim: { numberOfKeys: 3, lua: TRIM },
  itDeleteSession: { lua: DELETE_SESSION },
  itAcquireLease: { numberOfKeys: 2, lua: ACQUIRE_LEASE },
  itRenewLease: { numberOfKeys: 1, lua: RENEW_LEASE },
  itReleaseLease: { numberOfKeys: 1, lua: RELEASE_LEASE },
} as const;

type ScriptName = keyof typeof DEFINITIONS;
type Arg = string | number;

/** The keys and arguments of one session's append script call (see `APPEND`). */
export interface AppendCall {
  keys: [meta: string, log: string, byStatus: string, sessionCorrections: string, corrections: string];
  /** After the correction count: that many triples (corrected step id, indexed record, order key), then the frames. */
  args: [epoch: string, expectedLastSeq: number, batchId: string, summary: string, summaryStatus: string, channel: string, correctionCount: number, ...correctionsThenFrames: string[]];
}

/** What one append script call answered: {lastSeq, firstSeq} after the append. */
export type AppendReply = [lastSeq: number, firstSeq: number];

/** The scripts as typed calls: keys first, then arguments, in the orders documented above. */
export interface ClusterScripts {
  createSession(keys: [meta: string, sessions: string, byStatus: string, ...ownerSessions: [] | [ownerSessions: string]], args: [info: string, options: string, lastSeq: number, status: string, entry: string]): Promise<number>;
  updateSession(keys: [meta: string, byStatus: string], args: [info: string, status: string]): Promise<number>;
  append(keys: AppendCall['keys'], args: AppendCall['args']): Promise<AppendReply>;
  /**
   * Several sessions' appends in one script call (`APPEND_MANY`), each atomic for its session and
   * all with the same batch id (the first call's); settled per call, in order.
   */
  appendEach(calls: readonly AppendCall[]): Promise<PromiseSettledResult<AppendReply>[]>;
  trim(keys: [meta: string, log: string, snap: string], args: [expectedFirstSeq: number, throughSeq: number, snapshot: string]): Promise<number>;
  deleteSession(
    keys: [meta: string, log: string, snap: string, lease: string, sessions: string, byStatus: string, active: string, sessionCorrections: string, corrections: string, ...ownerSessions: [] | [ownerSessions: string]],
    args: [sessionId: string, ...correctionOrderKeys: string[]],
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
  // A script whose keys vary (an owner's list or not) takes their number first.
  const callVarying =
    <R>(name: ScriptName) =>
    (keys: readonly Arg[], args: readonly Arg[]): Promise<R> =>
      commands[name]([keys.length, ...keys], args) as Promise<R>;
  const append = call<AppendReply>('itAppend');
  return {
    createSession: callVarying('itCreateSession'),
    updateSession: call('itUpdateSession'),
    append,
    appendEach: (calls) => (calls.length === 1 ? Promise.allSettled([append(calls[0]!.keys, calls[0]!.args)]) : appendMany((args) => commands.itAppendMany([], args), calls)),
    trim: call('itTrim'),
    deleteSession: callVarying('itDeleteSession'),
    acquireLease: call('itAcquireLease'),
    renewLease: call('itRenewLease'),
    releaseLease: call('itReleaseLease'),
  };
}

/** The sessions' appends as one `APPEND_MANY` call, its replies settled per session. */
async function appendMany(call: (args: readonly Arg[]) => Promise<unknown>, calls: readonly AppendCall[]): Promise<PromiseSettledResult<AppendReply>[]> {
  const keys: Arg[] = [calls[0]!.keys[2], calls[0]!.keys[4]];
  const args: Arg[] = [calls[0]!.args[2]];
  for (const { keys: [meta, log, , sessionCorrections], args: [epoch, expectedLastSeq, , summary, summaryStatus, channel, correctionCount, ...rest] } of calls) {
    keys.push(meta, log, sessionCorrections);
    const triples = 3 * correctionCount;
    args.push(epoch, expectedLastSeq, summary, summaryStatus, channel, rest.length - triples, correctionCount, ...rest);
  }
  let replies: unknown;
  try {
    replies = await call([keys.length, ...keys, ...args]);
  } catch (error) {
    return calls.map(() => ({ status: 'rejected', reason: error }));
  }
  // A session's refusal is an error inside the reply array (ioredis hands it over as an Error).
  return calls.map((_, index) => {
    const reply = Array.isArray(replies) ? (replies[index] as unknown) : undefined;
    if (reply instanceof Error) return { status: 'rejected', reason: reply };
    if (!Array.isArray(reply)) return { status: 'rejected', reason: new Error(`Redis answered the append of several sessions with ${JSON.stringify(replies)?.slice(0, 80)}`) };
    return { status: 'fulfilled', value: reply as AppendReply };
  });
}
