import { Agent, get } from 'node:http';
import { connect as tcpConnect, type Socket } from 'node:net';
import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { useDurableScope } from './support/durable-scope.js';
import { startDurableServer, type TempFolder } from './support/durable-server.js';
import { expectWholeLog, range, seqsOf } from './support/log-checks.js';

let folder: TempFolder;
const connect = useDurableScope((made) => (folder = made));

/** `count` keep-alive HTTP connections that answered once and now sit idle in the agent's pool. */
async function idleKeepAlive(url: string, count: number): Promise<Agent> {
  const agent = new Agent({ keepAlive: true, maxSockets: count, keepAliveMsecs: 60_000 });
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve, reject) => {
          get(`${url}/api/health`, { agent }, (response) => {
            response.resume();
            response.on('end', () => resolve());
          }).on('error', reject);
        }),
    ),
  );
  return agent;
}

/** Sockets that started a request and never finished its headers (slowloris): never idle. */
async function halfRequests(url: string, count: number): Promise<Socket[]> {
  const { hostname, port } = new URL(url);
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = tcpConnect(Number(port), hostname, () => {
            socket.write(`GET /api/health HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-Slow: `);
            resolve(socket);
          });
          socket.on('error', () => undefined);
          socket.once('error', reject);
        }),
    ),
  );
}

describe('a stop that clients try to hold open', () => {
  it('writes what is pending, closes the store and exits 0 despite 100 idle keep-alive connections and 20 half-sent requests', async () => {
    const env = { INTERTHOUGHT_DB: folder.file('sessions.db'), INTERTHOUGHT_TOKEN_DELAY_MS: '20' };
    const first = await startDurableServer(env);
    const watcher = await connect(first.wsUrl);
    const sessionId = await watcher.client.createSession('A shop sells pens at $1.25 each. How much do 12 pens cost after a 15% discount?');
    await watcher.untilSeq(sessionId, 15);
    const agent = await idleKeepAlive(first.url, 100);
    const slow = await halfRequests(first.url, 20);

    const stopped = Date.now();
    expect(await first.stop()).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(9_000);
    expect(first.stderr()).not.toContain('did not stop in time');
    agent.destroy();
    for (const socket of slow) socket.destroy();

    // Everything the watcher saw is in the store, whole, and the run that was stopped is marked interrupted on restart.
    const seen = watcher.eventTexts(sessionId).map((text) => JSON.parse(text) as SessionEvent);
    const second = await startDurableServer(env);
    const fresh = await connect(second.wsUrl);
    const subscribed = (await fresh.subscribe(sessionId, 0)) as { lastSeq: number };
    expect(subscribed.lastSeq).toBeGreaterThanOrEqual(seen.length);
    await fresh.untilSeq(sessionId, subscribed.lastSeq);
    const log = fresh.eventTexts(sessionId);
    expect(log.slice(0, seen.length)).toEqual(watcher.eventTexts(sessionId));
    const events = log.map((text) => JSON.parse(text) as SessionEvent);
    expect(seqsOf(events)).toEqual(range(1, subscribed.lastSeq));
    expect(expectWholeLog(sessionId, events).session.status).toBe('interrupted');
    expect(await second.stop()).toBe(0);
  }, 60_000);
});
