import { POLICY_DECIDER } from './approval.js';

/** What `by` starts with for a connection that came by a share link without a sign-in (PROTOCOL.md §21.2). */
export const SHARE_ACTOR_PREFIX = 'share:';

/** The `by` of a connection that came by share link `shareId` and no sign-in. */
export function shareActor(shareId: string): string {
  return `${SHARE_ACTOR_PREFIX}${shareId}`;
}

/** Whether a record's `by` names a share link's holder. */
export function isShareActor(by: string | undefined): boolean {
  return by !== undefined && by.startsWith(SHARE_ACTOR_PREFIX);
}

/** `by` values that name a decider, not a person: the server on a timeout, a rule, a direct call of the core. */
const DECIDERS: ReadonlySet<string> = new Set(['server', POLICY_DECIDER, 'unknown']);

/** Who reads a record: the signed-in user, or the share link they came by; neither without users. */
export interface Reader {
  userId?: string | undefined;
  shareId?: string | undefined;
}

/**
 * Who a record names, for its reader (PROTOCOL.md §21.2, saying who): `you`, another `user` by
 * name, someone who came by a `share-link`, the `owner` (a connection id seen by a link's holder),
 * a `decider` (server, policy), or `someone` when nothing better is known.
 */
export type Attribution =
  | { kind: 'you' }
  | { kind: 'user'; name: string }
  | { kind: 'share-link' }
  | { kind: 'owner' }
  | { kind: 'decider'; decider: string }
  | { kind: 'someone' };

/** Who `by` (with the `byName` the server recorded) is for `reader`. One rule for the UI and the export. */
export function attributionOf(by: string | undefined, byName: string | undefined, reader: Reader): Attribution {
  if (by === undefined) return { kind: 'someone' };
  if (DECIDERS.has(by)) return { kind: 'decider', decider: by };
  if (reader.userId !== undefined && by === reader.userId) return { kind: 'you' };
  if (isShareActor(by)) return { kind: 'share-link' };
  if (byName !== undefined) return { kind: 'user', name: byName };
  // Without a name `by` is a connection id: without users every connection is the one user.
  if (reader.userId === undefined && reader.shareId === undefined) return { kind: 'you' };
  if (reader.shareId !== undefined && reader.userId === undefined) return { kind: 'owner' };
  return { kind: 'someone' };
}
