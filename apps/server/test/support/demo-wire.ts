import { applyEvents, createSessionState, type ServerMessage, type Step } from '@interthought/protocol';
import { afterAll, beforeAll } from 'vitest';
import { startServer, type RunningServer } from './server.js';
import { TestClient } from './ws-client.js';

/**
 * One real server and one connected client for every test of a file (registered on its
 * beforeAll/afterAll), with the reads the demo agent's end-to-end tests make of a session's frames.
 */
export function useServerAndClient() {
  let server: RunningServer | undefined;
  let client: TestClient | undefined;
  beforeAll(async () => {
    server = await startServer();
    client = await TestClient.connect(server.wsUrl);
    await client.waitForType('hello');
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });
  const connected = (): TestClient => {
    if (!client) throw new Error('The server and client did not start (see the beforeAll error).');
    return client;
  };
  return {
    client: connected,
    /** The first frame of the session, from frame `from` on, that matches. */
    next(sessionId: string, from: number, match: (frame: ServerMessage) => boolean, what: string): Promise<ServerMessage> {
      let seen = 0;
      return connected().waitFor((frame) => seen++ >= from && 'sessionId' in frame && frame.sessionId === sessionId && match(frame), what);
    },
    /** The session's chain, folded from the events this client received with the protocol's reducer. */
    chainOf(sessionId: string): Step[] {
      const state = applyEvents(createSessionState(), connected().events(sessionId));
      return state.chain.map((stepId) => state.steps.get(stepId)!);
    },
  };
}
