import { BenchSocket } from './bench-socket.js';
import { readFrameSeq, type ControlFrame } from './frame-reader.js';
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
  resumes: number;
}

/** A server may cut a replaying reader that falls behind (4008); resuming from its last seq is the protocol's answer. */
const MAX_RESUMES = 1_000;

interface Segment {
  /** The last seq received. */
  reached: number;
  /** The session's last seq, from `session.subscribed`. */
  lastSeq: number | undefined;
  outcome: 'done' | 'snapshot' | 'cut';
}

/** Subscribe from `afterSeq` on a fresh connection and read until the last seq, a snapshot, or the server cuts it. */
async function replaySegment(url: string, sessionId: string, afterSeq: number, knownLastSeq: number | undefined): Promise<Segment> {
  const socket = await BenchSocket.connect(url);
  try {
    const segment: Segment = { reached: afterSeq, lastSeq: knownLastSeq, outcome: 'cut' };
    const finished = new Promise<Segment>((resolve) => {
      const reached = (seq: number | undefined) => {
        if (seq !== undefined) segment.reached = seq;
        if (segment.lastSeq !== undefined && segment.reached >= segment.lastSeq) resolve({ ...segment, outcome: 'done' });
      };
      socket.onDelta = (frame) => reached(readFrameSeq(frame));
      socket.onControl = (frame) => {
        if (frame.type === 'session.subscribed') {
          segment.lastSeq = frame.lastSeq ?? 0;
          reached(undefined);
        } else if (frame.type === 'session.snapshot') {
          resolve({ ...segment, reached: Number(frame.seq ?? 0), outcome: 'snapshot' });
        } else if (frame.type !== 'error') {
          reached(frame.seq);
        }
      };
      socket.onServerClose = () => resolve({ ...segment });
    });
    socket.send({ type: 'session.subscribe', id: 'replay', sessionId, afterSeq });
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

/** Replay the whole session from `afterSeq: 0`, resuming from the last seq whenever the server cuts the reader. */
async function replayOnce(url: string, sessionId: string): Promise<Replay> {
  const started = performance.now();
  let segment = await replaySegment(url, sessionId, 0, undefined);
  let resumes = 0;
  while (segment.outcome === 'cut') {
    if (++resumes > MAX_RESUMES) throw new Error(`The replay was cut ${MAX_RESUMES} times; giving up.`);
    segment = await replaySegment(url, sessionId, segment.reached, segment.lastSeq);
  }
  const ms = performance.now() - started;
  return { events: segment.reached, ms, answeredWith: segment.outcome === 'snapshot' ? 'snapshot' : 'events', resumes };
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
      resumes: replays.reduce((sum, replay) => sum + replay.resumes, 0),
      errors: { ...builder.errors },
    };
  } finally {
    builder.close();
  }
}
