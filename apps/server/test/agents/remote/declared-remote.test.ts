import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestWorker, WORKER_TOKEN } from './worker-client.js';

let server: RunningServer | undefined;
const open: Array<{ close(): void }> = [];

afterEach(async () => {
  for (const socket of open.splice(0)) socket.close();
  await server?.close();
  server = undefined;
});

interface Listing {
  name: string;
  description: string;
  available: boolean;
  reason?: string;
}

async function agents(running: RunningServer): Promise<Listing[]> {
  return (await (await fetch(`${running.baseUrl}/api/agents`)).json()) as Listing[];
}

async function until<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let tries = 0; tries < 200; tries++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Gave up waiting for ${what}`);
}

describe('a remote agent of the agents file', () => {
  it('is listed unavailable before its first worker, served in the same place of the list once one registers it, and unavailable again when it leaves', async () => {
    const running = await startServer({
      agentTokens: [WORKER_TOKEN],
      agentsCatalog: { file: 'agents.json', agents: [{ name: 'builder', entry: { type: 'remote', description: 'Builds on our workers' } }] },
    });
    server = running;
    const before = await agents(running);
    const place = before.findIndex((agent) => agent.name === 'builder');
    expect(before[place]).toMatchObject({ name: 'builder', available: false, reason: 'no worker connected' });

    const worker = await TestWorker.serving(running.baseUrl, 'builder');
    open.push(worker);
    const served = await agents(running);
    expect(served.findIndex((agent) => agent.name === 'builder')).toBe(place);
    expect(served[place]).toMatchObject({ name: 'builder', description: 'Builds on our workers', available: true });

    worker.close();
    const after = await until(async () => {
      const listing = (await agents(running))[place];
      return listing?.available === false ? listing : undefined;
    }, 'the agent to be unavailable again');
    expect(after).toMatchObject({ name: 'builder', reason: 'no worker connected' });
  });
});
