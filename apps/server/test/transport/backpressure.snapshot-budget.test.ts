import type { Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { AgentRegistry } from '@interthought/agent';
import type { AgentRunContext } from '@interthought/agent';
import type { Config } from '../../src/config/index.js';
import { SLOW_CONSUMER_CLOSE } from '../../src/transport/backpressure-sender.js';
import { TestAgent } from '../core/support/test-agents.js';
import type { RunningServer } from '../support/server.js';
import { serverPerTest } from '../support/server-per-test.js';

/** A session whose snapshot is about 1.2 MB: 600 deltas of 2 KiB in one thought, then an answer. */
const DELTAS = 600;
const DELTA_TEXT = 'y'.repeat(2_048);
const BUDGET = 4 * 1024 * 1024;
/** Requests as fast as a hostile client likes; only the burst budget may stop it. */
const CONFIG: Partial<Config> = { burstBudgetBytes: BUDGET, ratePerSec: 10_000, rateBurst: 10_000 };

function bigSessionAgent(): TestAgent {
  return new TestAgent('big', async ({ sink }: AgentRunContext) => {
    const writer = sink.start('thought');
    for (let i = 0; i < DELTAS; i++) await writer.write(DELTA_TEXT);
    writer.end();
    const answer = sink.start('final_answer');
    await answer.write('done');
    answer.end();
  });
}

const scope = serverPerTest();

async function serverWithBigSession(): Promise<{ running: RunningServer; sessionId: string; snapshotBytes: number }> {
  const running = await scope.start(CONFIG, { agents: new AgentRegistry('big').register(bigSessionAgent()) });
  const creator = await scope.connect(running.wsUrl);
  const sessionId = await creator.createSession('a session with a big snapshot', { agent: 'big' });
  await creator.untilFinished(sessionId, 30_000);
  const snapshotBytes = JSON.stringify({ type: 'session.snapshot', ...(await running.app.sessions.snapshot(sessionId)) }).length;
  expect(snapshotBytes).toBeGreaterThan(1_200_000);
  return { running, sessionId, snapshotBytes };
}

/** The server's side of each open connection: what it holds in user space for the client. */
const serverSockets = (running: RunningServer): WebSocket[] => [...running.app.websocketServer.clients];

describe('backpressure: the burst budget against a client that asks for snapshots without reading', () => {
  it('closes the non-reader with 4008 while what the server holds for it stays within the budget', async () => {
    const { running, sessionId, snapshotBytes } = await serverWithBigSession();
    const hostile = await scope.connect(running.wsUrl);
    (hostile.socket as unknown as { _socket: Socket })._socket.pause();
    const held = () => Math.max(0, ...serverSockets(running).map((socket) => socket.bufferedAmount));
    let peak = 0;
    let asked = 0;
    const closing = () => serverSockets(running).some((socket) => socket.readyState === WebSocket.CLOSING);
    // 200 snapshots (240 MB) if nothing stopped it, a few milliseconds apart.
    while (asked < 200 && !closing()) {
      hostile.send({ type: 'session.subscribe', sessionId });
      asked += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      peak = Math.max(peak, held());
    }
    expect(closing(), `closed after ${asked} requests`).toBe(true);
    expect(peak).toBeLessThanOrEqual(BUDGET + 2 * snapshotBytes);
    // Reading again, the client finds what was sent before the close, then the close itself.
    (hostile.socket as unknown as { _socket: Socket })._socket.resume();
    expect(await hostile.closed).toEqual(SLOW_CONSUMER_CLOSE);
    expect(await (await fetch(`${running.baseUrl}/api/metrics`)).text()).toContain('\ninterthought_slow_consumer_closes_total 1\n');
  });

  it('answers a reader that reads every snapshot it asks for, again and again, and never closes it', async () => {
    const { running, sessionId, snapshotBytes } = await serverWithBigSession();
    const reader = await scope.connect(running.wsUrl);
    const rounds = Math.ceil((4 * BUDGET) / snapshotBytes);
    for (let round = 0; round < rounds; round++) {
      const answer = await reader.answerTo(reader.send({ type: 'session.subscribe', sessionId }));
      expect(answer.type).toBe('session.snapshot');
    }
    // Still open and still answered: a replay from the start, every event.
    const replayed = await reader.answerTo(reader.send({ type: 'session.subscribe', sessionId, afterSeq: 0 }));
    expect(replayed.type).toBe('session.subscribed');
    const lastSeq = (await running.app.sessions.snapshot(sessionId))?.seq;
    await vi.waitFor(() => expect(reader.events(sessionId).at(-1)?.seq).toBe(lastSeq), { timeout: 30_000 });
    expect(reader.closeInfo).toBeUndefined();
  });
});
