import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { AGENT_PROTOCOL_VERSION } from '@interthought/protocol';
import { connectWorker, type AgentWorker } from '../src/worker/index.js';

const MAX_QUEUED = 80;
/** The SDK keeps an eighth of the server's queue in flight at most (PROTOCOL.md Part II §A7). */
const WINDOW = MAX_QUEUED / 8;
const servers: WebSocketServer[] = [];
const workers: AgentWorker[] = [];

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/**
 * A server that speaks just enough of /ws/agents to start one run, and answers the worker's pings
 * only when told: what a server busy elsewhere looks like to the worker.
 */
async function stingyServer() {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong: false });
  servers.push(server);
  const deltas: string[] = [];
  const pings: Buffer[] = [];
  let frames = 0;
  let socket: WebSocket | undefined;
  server.on('connection', (ws) => {
    socket = ws;
    ws.on('ping', (data) => pings.push(data));
    ws.on('message', (data) => {
      frames += 1;
      const frame = JSON.parse(data.toString()) as { type: string; id?: string; text?: string };
      if (frame.type === 'agent.register') {
        ws.send(JSON.stringify({ type: 'agent.registered', requestId: frame.id, agents: [{ name: 'fast', description: 'writes without pause' }] }));
        ws.send(JSON.stringify({ type: 'run.start', runId: 'r1', sessionId: 's1', agent: 'fast', task: 'go', chain: [], options: {} }));
      }
      if (frame.type === 'step.delta') deltas.push(frame.text ?? '');
    });
    const limits = { maxFrameBytes: 65536, maxStepChars: 100000, maxRunsPerWorker: 16, maxAgentsPerWorker: 32, framesPerSecond: 1e6, frameBurst: 1e6, maxQueuedFramesPerRun: MAX_QUEUED, heartbeatMs: 60_000 };
    ws.send(JSON.stringify({ type: 'hello', protocol: AGENT_PROTOCOL_VERSION, serverVersion: 'test', workerId: 'w1', limits }));
  });
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    deltas,
    /** Every frame the worker sent (agent.register included). */
    frames: () => frames,
    unansweredPings: () => pings.length,
    /** Answer every ping so far, as a server that read up to them would. */
    answerPings: () => {
      for (const data of pings.splice(0)) socket?.pong(data);
    },
    until: async (condition: () => boolean) => {
      while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
    },
    /** A few turns of both sides: long enough for frames the worker would still send to arrive. */
    settle: () => new Promise((resolve) => setTimeout(resolve, 100)),
  };
}

describe('connectWorker: frames in flight', () => {
  it('stops at an eighth of maxQueuedFramesPerRun sent and not read, however fast the agent writes, and goes on as the server reads', async () => {
    const server = await stingyServer();
    let written = 0;
    const worker = await connectWorker({
      url: server.url,
      token: 't',
      reconnect: false,
      agents: [
        {
          name: 'fast',
          description: 'writes without pause',
          availability: () => ({ available: true }),
          run: async (context) => {
            const step = context.sink.start('thought');
            const writes: Promise<void>[] = [];
            for (let i = 0; i < 100; i += 1) {
              writes.push(step.write(`d${i} `));
              written += 1;
              const held = step.backpressure?.();
              if (held !== undefined) await held;
            }
            await Promise.all(writes);
          },
        },
      ],
    });
    workers.push(worker);
    // agent.register, step.start and the first deltas fill the window; the pings that number them go unanswered.
    await server.until(() => server.frames() >= WINDOW);
    await server.settle();
    expect(server.frames()).toBe(WINDOW);
    expect(written).toBeLessThan(100);
    server.answerPings();
    await server.until(() => server.frames() > WINDOW);
    // A window closed means pings went out that the server has not answered: answering them opens it.
    while (server.deltas.length < 100) {
      await server.until(() => server.unansweredPings() > 0 || server.deltas.length >= 100);
      server.answerPings();
    }
    expect(server.deltas).toEqual(Array.from({ length: 100 }, (_, i) => `d${i} `));
  });
});
