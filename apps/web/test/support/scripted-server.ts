import type { AddressInfo } from 'node:net';
import { InterthoughtClient } from '@interthought/protocol';
import { afterEach, beforeEach } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';

type Frame = Record<string, unknown> & { type: string; id?: string };

/**
 * A real WebSocket server that speaks just enough of the protocol for a unit test: it says
 * hello, then hands every client frame to `answer`, which replies with `send`.
 */
export class ScriptedServer {
  readonly received: Frame[] = [];
  answer: (frame: Frame, send: (reply: object) => void) => void = () => undefined;
  #wss: WebSocketServer;
  #sockets = new Set<WebSocket>();

  private constructor(wss: WebSocketServer) {
    this.#wss = wss;
    wss.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      const send = (reply: object) => socket.send(JSON.stringify(reply));
      send({
        type: 'hello',
        protocol: 'interthought/1',
        serverVersion: 'test',
        connectionId: `conn-${this.#sockets.size}`,
        capabilities: [],
        limits: { maxFrameBytes: 65536, maxTaskChars: 20000, maxCorrectionChars: 20000, maxSessionsPerConnection: 20, maxSubscriptionsPerConnection: 50, requestsPerSecond: 20, requestBurst: 40 },
      });
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as Frame;
        this.received.push(frame);
        this.answer(frame, send);
      });
    });
  }

  static async start(): Promise<ScriptedServer> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    return new ScriptedServer(wss);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.#wss.address() as AddressInfo).port}/ws`;
  }

  /** Wait until a frame of `type` arrived. */
  async next(type: string, timeoutMs = 5000): Promise<Frame> {
    const started = Date.now();
    for (;;) {
      const frame = this.received.find((entry) => entry.type === type);
      if (frame) {
        this.received.splice(this.received.indexOf(frame), 1);
        return frame;
      }
      if (Date.now() - started > timeoutMs) throw new Error(`No ${type} frame within ${timeoutMs} ms.`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }
}

/** Before each test: a scripted server and a real client connected to it (handed to `use`); both closed after it. */
export function useConnectedClient(use: (server: ScriptedServer, client: InterthoughtClient) => void): void {
  let opened: { server: ScriptedServer; client: InterthoughtClient } | undefined;
  beforeEach(async () => {
    const server = await ScriptedServer.start();
    const client = new InterthoughtClient({ url: server.url, WebSocket, requestTimeoutMs: 3000 });
    opened = { server, client };
    await client.connect();
    use(server, client);
  });
  afterEach(async () => {
    opened?.client.close();
    await opened?.server.close();
  });
}
