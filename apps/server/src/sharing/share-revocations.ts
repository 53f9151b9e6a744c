import { SHARE_ENDED_CLOSE } from '@interthought/protocol';
import type { Frame } from '../core/fanout/frame.js';
import type { Peer } from '../core/fanout/peer.js';
import type { SessionService } from '../core/session-service.js';

/** A connection opened with a share link, as the revocation watch sees it. */
export interface ShareHolder {
  readonly share: { sessionId: string; shareId: string } | undefined;
  /** Close with `code` once the requests before have been answered. */
  closeInTurn(code: number, reason: string): void;
}

/** One session's watch: the node's own follower of its log, and the link holders it ends. */
interface Watch {
  peer: Peer;
  holders: Set<ShareHolder>;
}

/**
 * Ends every connection opened with a share link the moment the link is revoked, or its session
 * deleted (PROTOCOL.md §21.3), whether the connection follows the session or not. For each session
 * that has link holders on this node, one internal follower reads its log: `share.revoked` and
 * `session.deleted` reach every node that follows a session (cluster mode included), so no other
 * channel is needed.
 */
export class ShareRevocations {
  readonly #watches = new Map<string, Watch>();

  constructor(
    private readonly sessions: Pick<SessionService, 'subscribe' | 'unsubscribe'>,
    private readonly report: (context: string, error: unknown) => void,
  ) {}

  /** Watch the holder's link (a connection that opened with none is ignored). */
  add(holder: ShareHolder): void {
    const sessionId = holder.share?.sessionId;
    if (sessionId === undefined) return;
    const watch = this.#watches.get(sessionId);
    if (watch !== undefined) {
      watch.holders.add(holder);
      return;
    }
    const created: Watch = { peer: this.#follower(sessionId), holders: new Set([holder]) };
    this.#watches.set(sessionId, created);
    this.sessions.subscribe(sessionId, { peer: created.peer }).catch((error: unknown) => this.report(`watching the links of session ${sessionId} failed`, error));
  }

  /** The holder's connection closed. */
  remove(holder: ShareHolder): void {
    const sessionId = holder.share?.sessionId;
    const watch = sessionId === undefined ? undefined : this.#watches.get(sessionId);
    if (sessionId === undefined || watch === undefined || !watch.holders.delete(holder) || watch.holders.size > 0) return;
    this.#watches.delete(sessionId);
    this.sessions.unsubscribe(sessionId, watch.peer).catch(() => undefined);
  }

  #follower(sessionId: string): Peer {
    // Only two kinds of event matter, read from the typed message.
    const read = (frame: Frame): void => {
      const message = frame.message;
      if (message.type === 'share.revoked') this.#end(sessionId, (holder) => holder.share?.shareId === message.shareId);
      else if (message.type === 'session.deleted') this.#end(sessionId, () => true);
    };
    return { id: `share-revocations:${sessionId}`, send: read, sendLive: () => undefined };
  }

  #end(sessionId: string, matches: (holder: ShareHolder) => boolean): void {
    const ending = [...(this.#watches.get(sessionId)?.holders ?? [])].filter(matches);
    if (ending.length === 0) return;
    // After the event's fan-out, which is synchronous: a holder that follows the session gets the event first.
    setImmediate(() => {
      for (const holder of ending) holder.closeInTurn(SHARE_ENDED_CLOSE.code, SHARE_ENDED_CLOSE.reason);
    });
  }
}
