import type { Socket } from 'node:net';
import {
  InterthoughtClient,
  applyEvents,
  chainSteps,
  createSessionState,
  firstSeqOf,
  toSnapshot,
  type ServerMessage,
  type SessionEvent,
  type SessionSnapshot,
  type SessionUpdate,
} from '@interthought/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { AgentRegistry } from '@interthought/agent';
import type { AgentRunContext } from '@interthought/agent';
import type { Config } from '../../src/config/index.js';
import { SLOW_CONSUMER_CLOSE } from '../../src/transport/backpressure-sender.js';
import { TestAgent } from '../core/support/test-agents.js';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

/**
 * The stream must outgrow what the kernel buffers for a reader that stopped (about 4 MiB on
 * loopback), so the server's own buffer fills and backpressure starts: 10 steps × 500 deltas × 2 KiB.
 */
const PLAN = { steps: 10, deltasPerStep: 500, deltaBytes: 2_048 } as const;
const SOFT_CAP = 8 * 1024;
const SMALL_CAPS: Partial<Config> = { softBufferBytes: SOFT_CAP, hardBufferBytes: 64 * 1024 };
/** Above the whole stream: a stalled reader is coalesced, never closed. */
const ROOMY_CAPS: Partial<Config> = { softBufferBytes: SOFT_CAP, hardBufferBytes: 64 * 1024 * 1024 };
const LONG_WAIT_MS = 60_000;

const FILLER = 'x'.repeat(PLAN.deltaBytes);
/** Unique per delta, so a lost, doubled or misplaced delta changes the step's content. */
const deltaText = (step: number, delta: number): string => `[${step}.${delta}]${FILLER}`.slice(0, PLAN.deltaBytes);
const stepText = (step: number): string => Array.from({ length: PLAN.deltasPerStep }, (_, delta) => deltaText(step, delta)).join('');
const FINAL_TEXT = 'The flood is over.';

interface Gate {
  open(): void;
  opened: Promise<void>;
}

function gate(): Gate {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** A long stream of big deltas that starts when the test opens its gate (once every reader is in place). */
function floodAgent(start: Gate): TestAgent {
  return new TestAgent('flood', async ({ sink }: AgentRunContext) => {
    await start.opened;
    for (let step = 0; step < PLAN.steps; step++) {
      const writer = sink.start('thought');
      for (let delta = 0; delta < PLAN.deltasPerStep; delta++) await writer.write(deltaText(step, delta));
      writer.end();
    }
    const answer = sink.start('final_answer');
    await answer.write(FINAL_TEXT);
    answer.end();
  });
}

let server: RunningServer | undefined;
const cleanups: Array<() => void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await server?.close();
  server = undefined;
});

async function startFloodServer(caps: Partial<Config>): Promise<{ server: RunningServer; start: Gate }> {
  const start = gate();
  const agents = new AgentRegistry('flood').register(floodAgent(start));
  server = await startServer(caps, { agents });
  return { server, start };
}

/** The TCP socket under a `ws` client: pausing it stops reading, so the server's writes back up. */
function tcpOf(socket: WebSocket): Socket {
  return (socket as unknown as { _socket: Socket })._socket;
}

async function connect(url: string): Promise<TestClient> {
  const client = await TestClient.connect(url);
  await client.waitForType('hello');
  cleanups.push(() => client.terminate());
  return client;
}

/** The seq ranges a stream covers that do not continue the one before: [] for 1…n without gap or overlap. */
function coverageBreaks(events: readonly SessionEvent[]): string[] {
  const breaks: string[] = [];
  let next = 1;
  for (const event of events) {
    const first = firstSeqOf(event);
    if (first !== next) breaks.push(`expected ${next}, got ${first}…${event.seq}`);
    next = event.seq + 1;
  }
  return breaks;
}

const coalesced = (events: readonly SessionEvent[]): SessionEvent[] => events.filter((event) => event.type === 'step.delta' && event.fromSeq !== undefined);

/** What every reader must end with: each thought carries exactly its deltas, in order, then the answer. */
function expectFullContent(steps: readonly { kind: string; content: string }[]): void {
  expect(steps.map((step) => step.kind)).toEqual([...Array.from({ length: PLAN.steps }, () => 'thought'), 'final_answer']);
  steps.forEach((step, index) => {
    if (index < PLAN.steps) expect(step.content === stepText(index), `content of thought ${index}`).toBe(true);
  });
  expect(steps.at(-1)?.content).toBe(FINAL_TEXT);
}

/** Fold from the session as its creator first saw it (`session.created`), as a client would. */
function foldFromCreation(creator: TestClient, events: readonly SessionEvent[]) {
  const created = creator.frames.find((frame) => frame.type === 'session.created');
  if (created?.type !== 'session.created') throw new Error('the creator never got session.created');
  return applyEvents(createSessionState(created.session), events);
}

/** The server side of a connection the server has started to close (its close frame queued). */
function closingServerSockets(running: RunningServer): number {
  return [...running.app.websocketServer.clients].filter((socket) => socket.readyState === WebSocket.CLOSING).length;
}

/** A healthy reader gets every event as its own frame: seq 1…n, no coalesced delta. */
async function expectHealthyStream(client: TestClient, sessionId: string): Promise<SessionEvent[]> {
  const events = await client.untilFinished(sessionId, LONG_WAIT_MS);
  expect(coalesced(events)).toEqual([]);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect(client.closeInfo).toBeUndefined();
  return events;
}

describe('backpressure: a reader that falls behind', () => {
  it('gets the deltas it missed coalesced per step once it reads again, and folds to the server snapshot', async () => {
    const { server: running, start } = await startFloodServer(ROOMY_CAPS);
    const healthy = await connect(running.wsUrl);
    const sessionId = await healthy.createSession('flood the readers', { agent: 'flood' });
    const slow = await connect(running.wsUrl);
    const subscribed = await slow.answerTo(slow.send({ type: 'session.subscribe', sessionId, afterSeq: 0 }));
    expect(subscribed.type).toBe('session.subscribed');
    const slowTcp = tcpOf(slow.socket);
    slowTcp.pause();
    start.open();

    const healthyEvents = await expectHealthyStream(healthy, sessionId);
    slowTcp.resume();
    const slowEvents = await slow.untilFinished(sessionId, LONG_WAIT_MS);

    expect(slow.closeInfo).toBeUndefined();
    expect(coalesced(slowEvents).length, 'the stalled reader got coalesced deltas').toBeGreaterThan(0);
    expect(slowEvents.length).toBeLessThan(healthyEvents.length);
    expect(coverageBreaks(slowEvents)).toEqual([]);
    const folded = foldFromCreation(healthy, slowEvents);
    expect(toSnapshot(folded)).toEqual(await running.app.sessions.snapshot(sessionId));
    expectFullContent(chainSteps(folded));
  });

  it('is closed with 4008 "slow consumer" past the hard cap while a healthy reader of the session gets every event', async () => {
    const { server: running, start } = await startFloodServer(SMALL_CAPS);
    const healthy = await connect(running.wsUrl);
    const sessionId = await healthy.createSession('flood the readers', { agent: 'flood' });
    const stalled = await connect(running.wsUrl);
    await stalled.answerTo(stalled.send({ type: 'session.subscribe', sessionId, afterSeq: 0 }));
    const stalledTcp = tcpOf(stalled.socket);
    stalledTcp.pause();
    start.open();

    // The server gives up on the stalled reader while it still reads nothing.
    await vi.waitFor(() => expect(closingServerSockets(running)).toBe(1), { timeout: LONG_WAIT_MS, interval: 20 });
    const healthyEvents = await expectHealthyStream(healthy, sessionId);
    expectFullContent(chainSteps(foldFromCreation(healthy, healthyEvents)));

    // Reading again, it finds what was sent before the close, then the close itself.
    stalledTcp.resume();
    expect(await stalled.closed).toEqual(SLOW_CONSUMER_CLOSE);
    const stalledEvents = stalled.events(sessionId);
    expect(coverageBreaks(stalledEvents)).toEqual([]);
    expect(stalledEvents.at(-1)?.seq ?? 0).toBeLessThan(healthyEvents.length);
    // Operators see it too.
    expect(await (await fetch(`${running.baseUrl}/api/metrics`)).text()).toContain('\ninterthought_slow_consumer_closes_total 1\n');
  });

  it('lets a reader catch up on a replay far larger than the hard cap without closing it', async () => {
    const { server: running, start } = await startFloodServer(SMALL_CAPS);
    const creator = await connect(running.wsUrl);
    const sessionId = await creator.createSession('flood the readers', { agent: 'flood' });
    start.open();
    const logged = await expectHealthyStream(creator, sessionId);

    // The whole log (megabytes) is one bounded burst: the hard cap is for live events piling up.
    const latecomer = await connect(running.wsUrl);
    await latecomer.answerTo(latecomer.send({ type: 'session.subscribe', sessionId, afterSeq: 0 }));
    await vi.waitFor(() => expect(latecomer.events(sessionId).length).toBe(logged.length), { timeout: LONG_WAIT_MS, interval: 20 });
    expect(latecomer.closeInfo).toBeUndefined();
    expect(latecomer.events(sessionId)).toEqual(logged);
  });

  it('lets a protocol client closed with 4008 reconnect and resume with afterSeq, losing and doubling nothing', async () => {
    const { server: running, start } = await startFloodServer(SMALL_CAPS);
    const sockets: WebSocket[] = [];
    const closes: Array<{ code: number; reason: string }> = [];
    class TrackedWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        sockets.push(this);
        this.on('close', (code, reason) => closes.push({ code, reason: reason.toString() }));
      }
    }
    const client = new InterthoughtClient({ url: running.wsUrl, WebSocket: TrackedWebSocket, backoff: { initialDelayMs: 10, maxDelayMs: 50 } });
    cleanups.push(() => client.close());
    await client.connect();
    const frames: ServerMessage[] = [];
    client.onMessage((frame) => frames.push(frame));
    const { session } = await client.createSession('flood the readers', { agent: 'flood' });
    const updates: SessionUpdate[] = [];
    client.subscribe(session.sessionId, (update) => updates.push(update));
    const firstTcp = tcpOf(sockets[0]!);
    firstTcp.pause();
    start.open();

    await vi.waitFor(() => expect(closingServerSockets(running)).toBe(1), { timeout: LONG_WAIT_MS, interval: 20 });
    firstTcp.resume();
    const finished = (update: SessionUpdate): boolean => update.type === 'session.status' && update.status === 'completed';
    await vi.waitFor(() => expect(updates.some(finished)).toBe(true), { timeout: LONG_WAIT_MS, interval: 20 });

    expect(closes[0]).toEqual(SLOW_CONSUMER_CLOSE);
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    // It resumed after its cursor (session.subscribed), never from a snapshot.
    expect(frames.filter((frame) => frame.type === 'session.snapshot')).toEqual([]);
    expect(frames.some((frame) => frame.type === 'session.subscribed' && frame.afterSeq > 0)).toBe(true);
    const [initial, ...events] = updates;
    expect(initial).toMatchObject({ type: 'session.snapshot', seq: 0 });
    expect(events.every((update) => update.type !== 'session.snapshot')).toBe(true);
    expect(coverageBreaks(events as SessionEvent[])).toEqual([]);
    const folded = applyEvents(createSessionState(initial as SessionSnapshot), events as SessionEvent[]);
    expect(toSnapshot(folded)).toEqual(await running.app.sessions.snapshot(session.sessionId));
    expectFullContent(chainSteps(folded));
  });
});
