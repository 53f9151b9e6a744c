import { accessOf, type Hello, type Me, type Owner, type SessionAccess, type ShareRole } from '@interthought/protocol';

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
  /** The session's summary is not here yet, so neither is its owner (a page still loading it). */
  pending?: boolean;
  /** The tab opened this session with a share link: until the hello says as what, it shows no editing control. */
  expectShare?: boolean;
  /** How the server lets clients in (`GET /api/me`): without any sign-in (`none`) a link would open nothing new, so none is offered. */
  auth?: Me['auth'] | undefined;
}

const RIGHTS: Record<Exclude<SessionAccess, 'owner'>, SessionRights> = { editor: EDITOR, viewer: VIEWER };

/**
 * What the page may offer on a session: the protocol's rule (§21.2, `accessOf`) as the page can
 * apply it, so it never shows a control the server would refuse with `FORBIDDEN`. The link in
 * `hello.share` is the one the server accepted, and it closes the connection (4403) once the link
 * ends: it works for its own session. Only users tell users apart, so a hello without one is a
 * server without users (or a link alone). Until the session's owner is known the page assumes
 * the user's own session, unless a link already says what this connection may do.
 */
export function sessionRights({ hello, sessionId, owner, pending = false, expectShare = false, auth }: RightsInput): SessionRights {
  if (!hello) return expectShare ? VIEWER : FULL_RIGHTS;
  const { user, share } = hello;
  const linkRole = share?.sessionId === sessionId ? share.role : undefined;
  const assumedOwner = pending && linkRole === undefined && user !== undefined ? user : owner;
  const access = accessOf({ user, share }, { owner: assumedOwner, linkRole }, user !== undefined);
  if (access !== 'owner') return RIGHTS[access ?? 'viewer'];
  // Worth a link where the server asks for a sign-in: users (jwt, proxy) or the shared token.
  const sharing = hello.capabilities.includes('sharing') && (user !== undefined || auth === 'token');
  return { ...OWNER, share: sharing };
}
