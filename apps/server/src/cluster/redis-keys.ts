/**
 * Key and channel names of cluster mode. Every key of session S carries the hash tag `{S}`, so
 * they all live in one hash slot: one Lua script may touch them together, also on Redis Cluster.
 */

/** The keys and the pub/sub channel of one session. */
export interface SessionKeys {
  /** Hash: info, options, lastSeq, firstSeq, epoch, lastBatch, status, entry. */
  meta: string;
  /** Stream of the session's events: id `<seq>-0`, field `f` = the event's JSON frame. */
  log: string;
  /** String: the snapshot (JSON) as of the last event retention trimmed. */
  snap: string;
  /** String `<nodeId>:<epoch>` with a PX TTL: who runs the session. */
  lease: string;
  /** Shard channel each appended batch is published on. */
  channel: string;
}

export function sessionKeys(sessionId: string): SessionKeys {
  const prefix = `it:{${sessionId}}:`;
  return { meta: `${prefix}meta`, log: `${prefix}log`, snap: `${prefix}snap`, lease: `${prefix}lease`, channel: `${prefix}ev` };
}

/** The session whose channel this is (see `SessionKeys.channel`), or undefined for another channel. */
export function sessionIdOfChannel(channel: string): string | undefined {
  return channel.startsWith('it:{') && channel.endsWith('}:ev') ? channel.slice(4, -4) : undefined;
}

/** Hash of one session's corrections (PROTOCOL.md §26): corrected step id → the indexed record (JSON). */
export function sessionCorrectionsKey(sessionId: string): string {
  return `it:{${sessionId}}:corrections`;
}

/** Sorted set (score 0) of every correction's order key (`orderKey`): the index, newest last by bytes. */
export const CORRECTIONS_KEY = 'it:corrections';
/** String set once the index covers every session's log (a Redis from before it gets one at start). */
export const CORRECTIONS_BUILT_KEY = 'it:corrections:built';

/** Sorted set of list entries (all score 0, ordered by bytes): the newest-first sessions list. */
export const SESSIONS_KEY = 'it:sessions';
/** Sorted set of `<status>\0<entry>` (score 0): each status's sessions, oldest first, by one range. */
export const BY_STATUS_KEY = 'it:by-status';
/** Set of sessions whose run has an owner: the takeover sweep looks here for missing leases. */
export const ACTIVE_KEY = 'it:active';
/** String: the key share links are signed with (PROTOCOL.md §21.3), made once by the first node that asks. */
export const SHARING_KEY = 'it:sharing-key';

/** Sorted set of the list entries of one user's sessions (`SessionInfo.owner.id`), like `SESSIONS_KEY`. */
export function ownerSessionsKey(ownerId: string): string {
  return `it:owner:${ownerId}:sessions`;
}

/**
 * A session's place in the list: `<createdAt>\0<sessionId>`. Members of equal score sort by
 * bytes, so this orders by (createdAt, sessionId) like the SQLite store's ORDER BY, ties in one
 * millisecond included: NUL sorts below every character of a timestamp, so a shorter timestamp
 * that prefixes a longer one still sorts first.
 */
export function listEntry(createdAt: string, sessionId: string): string {
  return `${createdAt}\0${sessionId}`;
}

/** The session id of a list entry; undefined when it is not one. */
export function sessionIdOfEntry(entry: string): string | undefined {
  const separator = entry.indexOf('\0');
  return separator < 0 ? undefined : entry.slice(separator + 1);
}

/** The lexicographic range of `BY_STATUS_KEY` holding the sessions with `status`. */
export function statusRange(status: string): { min: string; max: string } {
  return { min: `[${status}\0`, max: `(${status}\x01` };
}
