import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

let server: RunningServer | undefined;
const clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server?.close();
  server = undefined;
});

/** An upgrade request the server answers without upgrading: its status and body. */
function refusedUpgrade(wsUrl: string): Promise<{ status: number; body: string }> {
  const headers = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
  return new Promise((resolve, reject) => {
    const request = httpRequest(wsUrl.replace('ws:', 'http:'), { headers }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('upgrade', () => reject(new Error('the server upgraded')));
    request.on('error', reject);
    request.end();
  });
}

async function connect(url: string): Promise<TestClient> {
  const client = await TestClient.connect(url);
  clients.push(client);
  await client.waitForType('hello');
  return client;
}

describe('quotas one client address cannot exhaust for everyone', () => {
  it('refuses a WebSocket past the per-address cap with 429 before the upgrade, and takes one again once a socket closes', async () => {
    server = await startServer({ maxConnectionsPerAddress: 3 });
    const open = [await connect(server.wsUrl), await connect(server.wsUrl), await connect(server.wsUrl)];
    await expect(TestClient.connect(server.wsUrl)).rejects.toThrow('Unexpected server response: 429');
    const refused = await refusedUpgrade(server.wsUrl);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    await open[0]!.close();
    clients.splice(clients.indexOf(open[0]!), 1);
    // The close is counted when the server sees it; a new socket gets the freed place.
    await expect.poll(async () => TestClient.connect(server!.wsUrl).then((client) => (clients.push(client), true), () => false), { timeout: 5_000 }).toBe(true);
  });

  it('caps running or paused sessions per address across reconnects, and frees the place when one is cancelled', async () => {
    server = await startServer({ maxActiveSessionsPerAddress: 2, maxSessionsPerConnection: 100, tokenDelayMs: 200 });
    const first = await connect(server.wsUrl);
    const one = await first.createSession('What is 1 + 1?');
    await first.createSession('What is 2 + 2?');
    await first.close();
    clients.splice(0);

    // A new connection from the same address does not start a fresh count.
    const second = await connect(server.wsUrl);
    const id = second.send({ type: 'session.create', task: 'What is 3 + 3?' });
    expect(await second.answerTo(id)).toMatchObject({ type: 'error', code: 'LIMIT_EXCEEDED', requestId: id });
    const cancel = second.send({ type: 'session.cancel', sessionId: one });
    expect(await second.answerTo(cancel)).toMatchObject({ type: 'session.status', status: 'cancelled' });
    const again = second.send({ type: 'session.create', task: 'What is 3 + 3?' });
    expect(await second.answerTo(again)).toMatchObject({ type: 'session.created' });
  });

  it('holds an address to its run-start budget (creates, corrections and resumes together) with RATE_LIMITED, changing nothing', async () => {
    server = await startServer({ runStartsPerMinutePerAddress: 3, tokenDelayMs: 0 });
    const client = await connect(server.wsUrl);
    const sessionId = await client.createSession('What is 6 * 7?');
    await client.untilFinished(sessionId);
    await client.createSession('What is 8 * 9?');
    const toolCall = (await server.app.sessions.snapshot(sessionId))!.steps.find((step) => step.kind === 'tool_call')!;
    const correction = client.send({ type: 'step.correct', sessionId, stepId: toolCall.stepId, content: '{"expression":"6 * 8"}' });
    expect(await client.answerTo(correction)).toMatchObject({ type: 'correction.accepted' });
    const refused = client.send({ type: 'session.create', task: 'What is 1 + 2?' });
    const answer = await client.answerTo(refused);
    expect(answer).toMatchObject({ type: 'error', code: 'RATE_LIMITED', requestId: refused });
    expect((answer as { message: string }).message).toContain('your address');
    const listed = (await (await fetch(`${server.baseUrl}/api/sessions`)).json()) as { sessions: unknown[] };
    expect(listed.sessions).toHaveLength(2);
  });
});
