import type { SessionEngine } from '../sessions/session-engine.js';
import type { SessionFanout } from '../ports/session-fanout.js';

/**
 * The single process's fan-out: each client follows the session in memory, served as its events
 * are written (`Subscriptions`); a requester's answer goes to it directly, in order by construction.
 */
export function localFanout(engine: SessionEngine): SessionFanout {
  const { subscriptions } = engine;
  return {
    subscribe: (sessionId, reply, afterSeq) => engine.subscribe(sessionId, reply, afterSeq),
    attachCreator: (session, peer) => {
      subscriptions.openFromStart(session, peer);
      return undefined;
    },
    unsubscribe: (sessionId, peer) => engine.unsubscribe(sessionId, peer),
    detach: (peer) => engine.detach(peer),
    count: (peer) => subscriptions.countFor(peer),
    follows: (peer, sessionId) => subscriptions.watches(peer, sessionId),
    hold: (_sessionId, reply) => ({ reply, answered: (frame) => reply?.peer.send(frame), release: () => undefined }),
    deleted: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
