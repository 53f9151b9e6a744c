import { InterthoughtClient } from '@interthought/protocol';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionStatus } from '$lib/app/connection-status.svelte.js';
import { ScriptedServer } from '../../support/scripted-server.js';
import { until } from '../../support/app.js';

let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('ConnectionStatus', () => {
  it('reads "connected" once the client is open, and "reconnecting…" right after a drop', async () => {
    const server = await ScriptedServer.start();
    const client = new InterthoughtClient({ url: server.url, WebSocket, backoff: { initialDelayMs: 5_000, maxDelayMs: 5_000 } });
    const status = new ConnectionStatus(client);
    cleanup.push(() => server.close(), () => client.close(), () => status.dispose());
    expect(status.display(Date.now())).toEqual({ tone: 'down', label: 'offline', retryInSeconds: undefined });

    await client.connect();
    expect(status.display(Date.now())).toEqual({ tone: 'ok', label: 'connected' });

    await server.close();
    await until(() => status.state === 'reconnecting');
    // The wait before the next attempt decides: short is "reconnecting…", long is "offline — retrying in N s".
    const retryAt = status.retryAt ?? Date.now();
    expect(status.display(retryAt - 300)).toEqual({ tone: 'pending', label: 'reconnecting' });
    expect(status.display(retryAt - 2_500)).toEqual({ tone: 'down', label: 'offline', retryInSeconds: 3 });
  });

  it('retries at once when asked, instead of waiting out the backoff', async () => {
    const server = await ScriptedServer.start();
    const url = server.url;
    const client = new InterthoughtClient({ url, WebSocket, backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 } });
    const status = new ConnectionStatus(client);
    cleanup.push(() => client.close(), () => status.dispose());
    await client.connect();
    await server.close();
    await until(() => status.state === 'reconnecting' && status.retryAt !== undefined);
    const attemptsBefore = status.retryAt;
    status.retry();
    // The immediate attempt fails too (nothing listens), which schedules a fresh wait.
    await until(() => status.retryAt !== attemptsBefore);
    expect(status.state).toBe('reconnecting');
  });
});
