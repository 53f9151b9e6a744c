import { attributionOf, type Hello } from '@interthought/protocol';
import type { OwnConnections } from '$lib/app/own-connections.js';

/** Who reads the page: the hello it was let in with (its user or share link), its connection now, and the connections this browser had. */
export interface OwnReader {
  hello: Pick<Hello, 'user' | 'share'> | undefined;
  connectionId: string | undefined;
  ownConnections: Pick<OwnConnections, 'has'>;
}

/**
 * Whether a correction, decision or message was made by this page's user (PROTOCOL.md §21.2):
 * without users any connection is (every browser and profile is the one user), with users the
 * user's own id, and in either case one of this browser's connections (records older than users).
 */
export function isOwnActor(by: string | undefined, reader: OwnReader): boolean {
  if (by === undefined) return false;
  const { hello } = reader;
  if (attributionOf(by, undefined, { userId: hello?.user?.id, shareId: hello?.share?.shareId }).kind === 'you') return true;
  return by === reader.connectionId || reader.ownConnections.has(by);
}
