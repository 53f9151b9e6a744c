import { BenchSocket } from './bench-socket.js';
import type { ControlFrame } from './frame-reader.js';
import type { ReplayJob, ReplayResult } from './jobs.js';
import { createRequest, createdSessionId } from './stream-workload.js';

const BUILD_TIMEOUT_MS = 120_000;
const REPLAY_TIMEOUT_MS = 120_000;

function timeout(ms: number, what: string): { promise: Promise<never>; clear: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Waited ${ms} ms for ${what}.`)), ms);
  });
  return { promise, clear: () => clearTimeout(timer) };
}

/** Create the session and wait until its agent completed it; resolves with its id. */
async function buildSession(socket: BenchSocket, task: string): Promise<string> {
  const done = new Promise<void>((resolve, reject) => {
    socket.onDelta = () => undefined;
    socket.onControl = (frame: ControlFrame) => {
      if (frame.type !== 'session.status') return;
      if (frame.status === 'completed') resolve();
      else if (frame.status === 'failed' || frame.status === 'cancelled') reject(new Error(`The replay session ended ${frame.status}: ${String(frame.error ?? '')}`));
    };
  });
  const sessionId = createdSessionId(await socket.request(createRequest(task)));
  const limit = timeout(BUILD_TIMEOUT_MS, 'the replay session to complete');
  try {
    await Promise.race([done, limit.promise]);
  } finally {
    limit.clear();
  }
  return sessionId;
}

interface Replay {
  events: number;
  ms: number;
  answeredWith: 'events' | 'snapshot';
}

/** Subscribe with `afterSeq: 0` on a fresh connection and time until the last event arrived. */
async function replayOnce(url: string, sessionId: string): Promise<Replay> {
  const socket = await BenchSocket.connect(url);
  try {
    let expected = Infinity;
    let received = 0;
    let started = 0;
    const finished = new Promise<Replay>((resolve) => {
      const count = () => {
        received++;
        if (received >= expected) resolve({ events: received, ms: performance.now() - started, answeredWith: 'events' });
      };
      socket.onDelta = count;
      socket.onControl = (frame) => {
        if (frame.type === 'session.subscribed') {
          expected = (frame.lastSeq ?? 0) - Number(frame.afterSeq ?? 0);
          if (expected <= 0) resolve({ events: 0, ms: performance.now() - started, answeredWith: 'events' });
        } else if (frame.type === 'session.snapshot') {
          resolve({ events: Number(frame.seq ?? 0), ms: performance.now() - started, answeredWith: 'snapshot' });
        } else if (frame.type !== 'error') {
          count();
        }
      };
    });
    started = performance.now();
    socket.send({ type: 'session.subscribe', id: 'replay', sessionId, afterSeq: 0 });
    const limit = timeout(REPLAY_TIMEOUT_MS, 'the replay to finish');
    try {
      return await Promise.race([finished, limit.promise]);
    } finally {
      limit.clear();
    }
  } finally {
    socket.close();
  }
}

/** Build one long session, then replay it from the start `repeats` times. */
export async function runReplay(job: ReplayJob): Promise<ReplayResult> {
  const builder = await BenchSocket.connect(job.url);
  try {
    const started = performance.now();
    const sessionId = await buildSession(builder, job.task);
    const buildMs = performance.now() - started;
    const replays: Replay[] = [];
    for (let i = 0; i < job.repeats; i++) replays.push(await replayOnce(job.url, sessionId));
    const answeredWith = replays.some((replay) => replay.answeredWith === 'snapshot') ? 'snapshot' : 'events';
    return {
      kind: 'replay',
      events: Math.max(0, ...replays.map((replay) => replay.events)),
      buildMs: Math.round(buildMs),
      replayPerSec: replays.map((replay) => (replay.events / replay.ms) * 1_000),
      answeredWith,
      errors: { ...builder.errors },
    };
  } finally {
    builder.close();
  }
}
