import type { FastifyInstance } from 'fastify';
import type { Peer } from '../../src/core/fanout/peer.js';
import type { SessionService } from '../../src/core/session-service.js';
import type { TestClient } from './ws-client.js';

/**
 * The `user` the session core sees on a connection: the client asks `sessions.watch`, and the
 * real core's `watchList` is wrapped to record the peer it is handed.
 */
export function recordPeers(app: FastifyInstance): (client: TestClient) => Promise<Peer['user']> {
  const seen: Peer[] = [];
  const sessions: { watchList: SessionService['watchList'] } = app.sessions;
  const original = sessions.watchList.bind(sessions);
  sessions.watchList = (reply, limit, ...scope) => {
    seen.push(reply.peer);
    return original(reply, limit, ...scope);
  };
  return async (client) => {
    const id = client.send({ type: 'sessions.watch' });
    await client.answerTo(id);
    return seen.at(-1)?.user;
  };
}
