import type { Hello, Me, Owner, ShareRole } from '@interthought/protocol';

/** Who the page is to a session, as far as the buttons it shows go (PROTOCOL.md §21.2). */
export type SessionRole =
  /** Its owner, an admin, or anyone on a server without users (everyone is the one user). */
  | 'owner'
  /** The holder of a share link, or a signed-in user who is not its owner (read-only). */
  | ShareRole;

/** What the page offers on a session. */
export interface SessionRights {
  role: SessionRole;
  /** Correct, message, approve or reject, pause, resume, cancel. */
  steer: boolean;
  /** Fork it (the fork belongs to whoever asks: a share link's holder owns nothing). */
  fork: boolean;
  /** Delete it. */
  remove: boolean;
  /** Make and revoke share links to it (the server must offer `sharing`). */
  share: boolean;
  /** Import sessions from files (only an account or a server without users can own one). */
  import: boolean;
}

const OWNER: Omit<SessionRights, 'share'> = { role: 'owner', steer: true, fork: true, remove: true, import: true };
const EDITOR: SessionRights = { role: 'editor', steer: true, fork: false, remove: false, share: false, import: false };
const VIEWER: SessionRights = { role: 'viewer', steer: false, fork: false, remove: false, share: false, import: false };

/** Everything, as before users: what a page shows until it knows better (and what tests assume). */
export const FULL_RIGHTS: SessionRights = { ...OWNER, share: false };

export interface RightsInput {
  /** The connection's hello: who it speaks for (`user`), through which link (`share`), what the server offers. */
  hello: Pick<Hello, 'user' | 'share' | 'capabilities'> | undefined;
  sessionId: string;
  /** The session's owner, once its snapshot is here (absent without users, or on an older session). */
  owner: Owner | undefined;
  /** The tab opened this session with a share link: until the hello says as what, it shows no editing control. */
  expectShare?: boolean;
  /** How the server lets clients in (`GET /api/me`): without any sign-in (`none`) a link would open nothing new, so none is offered. */
  auth?: Me['auth'] | undefined;
}

/**
 * What the page may offer on a session: the server's rule (§21.2) as the page can know it, so it
 * never shows a control the server would refuse with `FORBIDDEN`. A connection opened with a share
 * link is held to the link's role whoever is signed in, since the server limits it to that.
 */
export function sessionRights({ hello, sessionId, owner, expectShare = false, auth }: RightsInput): SessionRights {
  if (!hello) return expectShare ? VIEWER : FULL_RIGHTS;
  if (hello.share) return hello.share.sessionId === sessionId && hello.share.role === 'editor' ? EDITOR : VIEWER;
  const user = hello.user;
  // Worth a link where the server asks for a sign-in: users (jwt, proxy) or the shared token.
  const sharing = hello.capabilities.includes('sharing') && (user !== undefined || auth === 'token');
  // Without users everyone is the one local user; an admin, and the owner, may do everything.
  if (!user || user.admin || owner === undefined || owner.id === user.id) return { ...OWNER, share: sharing };
  return VIEWER;
}
