import { nowMicros } from '../../apps/server/src/agents/firehose/firehose-text.js';
import { BenchSocket, connectMany, mergeErrors, serverCloses } from './bench-socket.js';
import { DeltaMeter } from './delta-meter.js';
import type { StreamResult, StreamSpec } from './jobs.js';

/** How long the first delta may take once the sessions exist (covers the task's start delay). */
const FIRST_DELTA_TIMEOUT_MS = 30_000;
const CANCEL_TIMEOUT_MS = 5_000;

/** The connections of a stream run: per session its creator and subscribers, plus the watchers of every session. */
export interface StreamFleet {
  healthy: BenchSocket[];
  watchers: BenchSocket[];
  creators: { socket: BenchSocket; sessionId: string }[];
  /** When every connection was attached (µs on the shared clock). */
  readyAt: number;
  setupMs: number;
}

/** The firehose session request of the bench (token pacing off: the firehose paces itself). */
export function createRequest(task: string, agent = 'firehose'): Record<string, unknown> {
  return { type: 'session.create', task, agent, options: { tokenDelayMs: 0 } };
}

/** Read the session id out of a `session.created` answer. */
export function createdSessionId(answer: { session?: { sessionId: string } }): string {
  const sessionId = answer.session?.sessionId;
  if (typeof sessionId !== 'string') throw new Error('session.created carried no session id.');
  return sessionId;
}

async function attach(spec: StreamSpec, groups: BenchSocket[][], watchers: BenchSocket[]) {
  const creators = await Promise.all(
    groups.map(async (group) => {
      const socket = group[0];
      if (socket === undefined) throw new Error('A session needs at least one subscriber.');
      return { socket, sessionId: createdSessionId(await socket.request(createRequest(spec.task, spec.agent))) };
    }),
  );
  const subscribers = groups.flatMap((group, s) =>
    group.slice(1).map((socket) => socket.request({ type: 'session.subscribe', sessionId: creators[s]?.sessionId })),
  );
  const watching = watchers.map(async (socket) => {
    for (const { sessionId } of creators) await socket.request({ type: 'session.subscribe', sessionId });
    if (spec.watchersStall) socket.stall();
  });
  await Promise.all([...subscribers, ...watching]);
  return creators;
}

/** Connect, create the sessions, attach every subscriber (healthy ones to `meter`) and the watchers. */
export async function openStreamFleet(spec: StreamSpec, meter: DeltaMeter): Promise<StreamFleet> {
  const started = performance.now();
  const perSession = spec.subscribersPerSession;
  const sockets = await connectMany(spec.url, spec.sessions * perSession + spec.watchers);
  const healthy = sockets.slice(0, spec.sessions * perSession);
  const watchers = sockets.slice(spec.sessions * perSession);
  const groups = Array.from({ length: spec.sessions }, (_, s) => healthy.slice(s * perSession, (s + 1) * perSession));
  for (const socket of healthy) socket.onDelta = meter.handler();
  for (const socket of watchers) socket.onDelta = meter.watcherHandler();
  try {
    const creators = await attach(spec, groups, watchers);
    return { healthy, watchers, creators, readyAt: nowMicros(), setupMs: performance.now() - started };
  } catch (error) {
    for (const socket of sockets) socket.close();
    throw error;
  }
}

/** Cancel every session (so no run outlives the measurement) and close every connection. */
export async function closeStreamFleet(fleet: StreamFleet): Promise<void> {
  await Promise.all(
    fleet.creators.map(({ socket, sessionId }) =>
      socket.request({ type: 'session.cancel', sessionId }, CANCEL_TIMEOUT_MS).catch(() => undefined),
    ),
  );
  for (const socket of [...fleet.healthy, ...fleet.watchers]) socket.close();
}

/** Measure a fleet that is already open: wait for the stream, count one window. */
export async function measureStream(spec: StreamSpec, fleet: StreamFleet, meter: DeltaMeter): Promise<StreamResult> {
  const firstDeltaAt = await meter.firstDelta(FIRST_DELTA_TIMEOUT_MS);
  const windowMs = await meter.measure(Math.max(firstDeltaAt, fleet.readyAt), spec.warmupMs, spec.measureMs);
  return {
    kind: 'stream',
    deliveredPerSec: (meter.measured / windowMs) * 1_000,
    deltasMeasured: meter.measured,
    windowMs,
    latency: meter.latency.summary(),
    ...(meter.scheduled === undefined ? {} : { scheduledLatency: meter.scheduled.summary() }),
    connections: fleet.healthy.length,
    watchers: fleet.watchers.length,
    watchersStalled: spec.watchersStall,
    watcherBytesPerSec: fleet.watchers.length === 0 ? 0 : (meter.watcherBytes / fleet.watchers.length / windowMs) * 1_000,
    orderViolations: meter.orderViolations,
    coalescedFrames: meter.coalescedFrames,
    closedByServer: serverCloses(fleet.healthy),
    watchersClosedByServer: serverCloses(fleet.watchers),
    errors: mergeErrors([...fleet.healthy, ...fleet.watchers]),
    setupMs: Math.round(fleet.setupMs),
  };
}

/** S sessions × C subscribers (plus watchers): delivered deltas per second and their latency. */
export async function runStream(spec: StreamSpec, holding: (connections: number) => Promise<void>): Promise<StreamResult> {
  const meter = new DeltaMeter(spec.pacedPerSec === undefined ? {} : { pacedPerSec: spec.pacedPerSec });
  const fleet = await openStreamFleet(spec, meter);
  try {
    const result = await measureStream(spec, fleet, meter);
    if (spec.holdAtEnd) await holding(fleet.healthy.length + fleet.watchers.length);
    return result;
  } finally {
    await closeStreamFleet(fleet);
  }
}
