// @vitest-environment node
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { InterthoughtClient } from '@interthought/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { AccessGate, TokenStore } from '$lib/access/index.js';
import { RestApi } from '$lib/api/rest-api.js';

const HELLO = {
  type: 'hello',
  protocol: 'interthought/1',
  serverVersion: 'test',
  connectionId: 'conn-1',
  capabilities: [],
  limits: { maxFrameBytes: 65536, maxTaskChars: 20000, maxCorrectionChars: 20000, maxSessionsPerConnection: 20, maxSubscriptionsPerConnection: 50, requestsPerSecond: 20, requestBurst: 40 },
};

/**
 * A real HTTP + WebSocket server that guards like Interthought's: /api/agents and the /ws upgrade
 * answer 401 unless the request presents `secret` (Bearer header, or ?token= on the socket).
 */
class GuardedServer {
  secret: string | undefined;
  /** The URLs of every upgrade asked for, refused or not. */
  readonly upgrades: string[] = [];
  readonly #wss = new WebSocketServer({ noServer: true });
  #http: Server;
  port = 0;

  constructor(secret: string | undefined) {
    this.secret = secret;
    this.#http = this.#create();
  }

  #create(): Server {
    const http = createServer((request, response) => {
      const presented = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (this.secret !== undefined && presented !== this.secret) {
        response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'UNAUTHORIZED', message: 'Send the server token.' }));
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      }
    });
    http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrades.push(request.url ?? '');
      const presented = new URL(request.url ?? '/', 'http://x').searchParams.get('token') ?? undefined;
      if (this.secret !== undefined && presented !== this.secret) {
        // The client may drop the socket as soon as it reads the 401, resetting it under our write.
        socket.on('error', () => undefined);
        socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.#wss.handleUpgrade(request, socket, head, (ws) => ws.send(JSON.stringify(HELLO)));
    });
    return http;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#http.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.#http.address() as AddressInfo).port;
  }

  /** Stop answering at all (connections included), as a server that went down. */
  async stop(): Promise<void> {
    for (const client of this.#wss.clients) client.terminate();
    this.#http.closeAllConnections();
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
    this.#http = this.#create();
  }
}

const running: Array<{ server: GuardedServer; client: InterthoughtClient; gate: AccessGate }> = [];

async function setUp(secret: string | undefined, token?: string) {
  const server = new GuardedServer(secret);
  await server.listen();
  const tokens = new TokenStore(null);
  if (token !== undefined) tokens.set(token);
  const client = new InterthoughtClient({
    url: `ws://127.0.0.1:${server.port}/ws`,
    WebSocket,
    token: () => tokens.token,
    backoff: { initialDelayMs: 5, maxDelayMs: 20 },
    requestTimeoutMs: 2_000,
  });
  const api = new RestApi({ baseUrl: `http://127.0.0.1:${server.port}`, token: () => tokens.token });
  const gate = new AccessGate({ tokens, client, check: () => api.checkAccess(), refusals: api, recheckMs: 30 });
  gate.start();
  running.push({ server, client, gate });
  return { server, client, gate, api, tokens };
}

afterEach(async () => {
  for (const { server, client, gate } of running.splice(0)) {
    gate.stop();
    client.close();
    await server.stop();
  }
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('AccessGate', () => {
  it('lets a server without a token be used, and asks for nothing', async () => {
    const { client, gate } = await setUp(undefined);
    await client.connect();
    expect(gate.problem).toBeNull();
  });

  it('says a token is missing when the socket is refused without one, and stops the client retrying', async () => {
    const { server, client, gate } = await setUp('s3cret-t0ken');
    void client.connect().catch(() => undefined);
    await vi.waitFor(() => expect(gate.problem).toBe('missing'));
    expect(client.state).toBe('closed');
    const attempts = server.upgrades.length;
    // With a 5–20 ms backoff a retrying client would have tried many more times by now.
    await pause(200);
    expect(server.upgrades.length).toBe(attempts);
  });

  it('says the token was refused when the page has a wrong one', async () => {
    const { client, gate } = await setUp('s3cret-t0ken', 'wrong-token');
    void client.connect().catch(() => undefined);
    await vi.waitFor(() => expect(gate.problem).toBe('refused'));
    expect(client.state).toBe('closed');
  });

  it('connects with a pasted token the server accepts, sending it on the socket URL', async () => {
    const { server, client, gate, tokens } = await setUp('s3cret-t0ken');
    void client.connect().catch(() => undefined);
    await vi.waitFor(() => expect(gate.problem).toBe('missing'));
    await gate.submit('  s3cret-t0ken \n');
    expect(tokens.token).toBe('s3cret-t0ken');
    expect(gate.problem).toBeNull();
    expect(gate.checking).toBe(false);
    await vi.waitFor(() => expect(client.state).toBe('open'));
    expect(server.upgrades.at(-1)).toBe('/ws?token=s3cret-t0ken');
  });

  it('keeps saying refused after a wrong paste, and does not connect', async () => {
    const { client, gate } = await setUp('s3cret-t0ken');
    void client.connect().catch(() => undefined);
    await vi.waitFor(() => expect(gate.problem).toBe('missing'));
    await gate.submit('not-the-token');
    expect(gate.problem).toBe('refused');
    expect(client.state).toBe('closed');
    await gate.submit('   ');
    expect(gate.problem).toBe('refused');
  });

  it('blocks on a REST 401 to a call made with the current token, not on one made with an older token', async () => {
    const { client, gate, api, tokens } = await setUp('s3cret-t0ken', 's3cret-t0ken');
    await client.connect();
    gate.refused('an-older-token');
    expect(gate.problem).toBeNull();
    expect(client.state).toBe('open');
    tokens.set('changed-token');
    await expect(api.agents()).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(gate.problem).toBe('refused');
    expect(client.state).toBe('closed');
  });

  it('finds out when a server that went down comes back needing another token', async () => {
    const { server, client, gate } = await setUp('first-token', 'first-token');
    await client.connect();
    await server.stop();
    await vi.waitFor(() => expect(client.state).toBe('reconnecting'));
    await pause(80);
    // Unreachable is not a token problem: the client keeps trying.
    expect(gate.problem).toBeNull();
    server.secret = 'second-token';
    await server.listen();
    await vi.waitFor(() => expect(gate.problem).toBe('refused'));
    expect(client.state).toBe('closed');
  });
});
