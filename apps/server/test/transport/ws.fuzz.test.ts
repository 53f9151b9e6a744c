import { isDeepStrictEqual } from 'node:util';
import {
  ANSWER_TYPES,
  ERROR_CODES,
  ERROR_LIMITS,
  errorFrame,
  parseClientMessage,
  type ClientMessageType,
  type ParseResult,
  type ServerMessage,
  type ServerMessageType,
} from '@interthought/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/index.js';
import { RATE_ABUSE_CLOSE } from '../../src/transport/frame-handler.js';
import { hostileFrame, MISSING_SESSION, oversizeFrame, type HostileFrame } from '../support/hostile-frames.js';
import { startServer, type RunningServer } from '../support/server.js';
import { expectCompleteStream, startBystander, type Bystander } from '../support/session-stream.js';
import { TestClient, type CloseInfo } from '../support/ws-client.js';

/** Change the seed to explore; a failure names the frame, and the same seed sends it again. */
const SEED = 18_018;
const HOSTILE_CONNECTIONS = 4;
/** Per connection, with the rate limits raised: 4 × 800 frames reach the parser. */
const FRAMES_PER_CONNECTION = 800;
/** Per connection, with the default limits: more than the burst and the rejections it tolerates. */
const FLOOD_PER_CONNECTION = 120;
/** Frames sent before waiting for their answers, so a connection has many in flight but never floods its own reader. */
const CHUNK = 100;
/** An error frame of any request stays well below the frame limit (ERROR_LIMITS: 20 details of bounded size). */
const ERROR_FRAME_MAX_BYTES = 16 * 1024;
/** The bystander's pace: its run of about 90 tokens goes on through most of the fuzz. */
const BYSTANDER_TOKEN_DELAY_MS = 50;

const KNOWN_CODES: ReadonlySet<string> = new Set(Object.values(ERROR_CODES));
/** Frame types that are only ever sent as the answer to a request. */
const ANSWER_ONLY_TYPES: ReadonlySet<string> = new Set(['error', 'session.created', 'session.snapshot', 'session.subscribed', 'session.unsubscribed', 'correction.accepted', 'sessions.watching', 'sessions.unwatched']);
/** What a request that was carried out is answered with (when it is not refused with an `error`): the protocol's own table. */
const ANSWER_OF: Readonly<Record<ClientMessageType, readonly ServerMessageType[]>> = ANSWER_TYPES;

/**
 * The answers among a connection's frames, as opposed to pushes (hello, a session's events, list
 * changes): frames of an answer type or carrying a `requestId`. A created session's
 * `session.subscribed` (the creator is subscribed from seq 0) belongs to its `session.created`.
 */
function answersAmong(frames: readonly ServerMessage[]): ServerMessage[] {
  const created = new Set<string>();
  return frames.filter((frame) => {
    if (frame.type === 'session.created') created.add(frame.session.sessionId);
    if (frame.type === 'session.subscribed' && frame.requestId === undefined && created.delete(frame.sessionId)) return false;
    return ANSWER_ONLY_TYPES.has(frame.type) || 'requestId' in frame;
  });
}

/** What the server's parser makes of the frame: the same function, on the same bytes the socket carried. */
function parsed(frame: HostileFrame): ParseResult {
  if (frame.binary) return { ok: false, error: errorFrame(ERROR_CODES.BAD_JSON, 'binary frames are not accepted: send JSON text') };
  return parseClientMessage(Buffer.from(frame.data));
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : Buffer.isBuffer(value) ? `<binary ${value.toString('hex').slice(0, 60)}>` : String(JSON.stringify(value));
  return text.length > 160 ? `${text.slice(0, 160)}… (${text.length} chars)` : text;
}

/** Within ERROR_LIMITS, and small on the wire. */
function errorFrameProblem(answer: Extract<ServerMessage, { type: 'error' }>): string | undefined {
  if (!KNOWN_CODES.has(answer.code) || answer.code === ERROR_CODES.INTERNAL) return `code ${answer.code}`;
  const details = answer.details ?? [];
  const bounded =
    answer.message.length <= ERROR_LIMITS.messageMax &&
    details.length <= ERROR_LIMITS.detailsMax &&
    details.every(
      (detail) =>
        detail.message.length <= ERROR_LIMITS.messageMax &&
        detail.path.length <= ERROR_LIMITS.pathMax &&
        detail.path.every((key) => typeof key === 'number' || key.length <= ERROR_LIMITS.pathSegmentMax),
    );
  if (!bounded) return 'an error frame beyond ERROR_LIMITS';
  const bytes = Buffer.byteLength(JSON.stringify(answer));
  return bytes < ERROR_FRAME_MAX_BYTES ? undefined : `an error frame of ${bytes} bytes`;
}

/**
 * What is wrong with the answer to one frame, or undefined. A refused frame gets exactly the
 * parser's error frame (with its `requestId` whenever the frame had a usable `id`); a valid one
 * an answer of its type or a typed refusal, never INTERNAL. `throttled`: RATE_LIMITED is allowed.
 */
function answerProblem(frame: HostileFrame, answer: ServerMessage | undefined, throttled: boolean): string | undefined {
  if (answer === undefined) return 'no answer';
  if (answer.type === 'error') {
    const problem = errorFrameProblem(answer);
    if (problem) return problem;
  }
  const expected = parsed(frame);
  const requestId = expected.ok ? expected.message.id : expected.error.requestId;
  const echoed = 'requestId' in answer ? answer.requestId : undefined;
  if (throttled && answer.type === 'error' && answer.code === ERROR_CODES.RATE_LIMITED) return echoed === requestId ? undefined : `RATE_LIMITED with requestId ${preview(echoed)}`;
  if (!expected.ok) return isDeepStrictEqual(answer, expected.error) ? undefined : `expected ${preview(expected.error)}`;
  if (echoed !== requestId) return `requestId ${preview(echoed)} instead of ${preview(requestId)}`;
  if (answer.type === 'error' || ANSWER_OF[expected.message.type].includes(answer.type)) return undefined;
  return `a ${answer.type} answer to ${expected.message.type}`;
}

/** Every frame paired with its answer, in order (the server answers a connection's frames in the order they came). */
function answerProblems(sent: readonly HostileFrame[], answers: readonly ServerMessage[], throttled: boolean): string[] {
  const problems: string[] = [];
  sent.forEach((frame, index) => {
    if (index >= answers.length && throttled) return;
    const problem = answerProblem(frame, answers[index], throttled);
    if (problem) problems.push(`#${index} ${frame.kind} ${preview(frame.data)}: ${problem}; got ${preview(answers[index])}`);
  });
  if (answers.length > sent.length) problems.push(`${answers.length - sent.length} answers more than frames: ${preview(answers.slice(sent.length))}`);
  return problems.slice(0, 10);
}

interface HostileRun {
  sent: HostileFrame[];
  answers: ServerMessage[];
  close: CloseInfo;
}

/** A request every connection can send to learn that all it sent before has been answered. */
function syncFrame(label: string): HostileFrame {
  return { kind: 'sync', data: JSON.stringify({ type: 'session.pause', id: label, sessionId: MISSING_SESSION }), binary: false };
}

/**
 * Draw and send one connection's frames chunk by chunk, each chunk from a seed of its own (so drawing
 * overlaps the fuzz, and a failing chunk can be drawn again alone), waiting for each chunk's
 * answers; then one frame over the size limit.
 */
async function fuzzConnection(wsUrl: string, arbitrary: fc.Arbitrary<HostileFrame>, seed: number, maxFrameBytes: number): Promise<HostileRun> {
  const client = await TestClient.connect(wsUrl);
  await client.waitForType('hello');
  const sent: HostileFrame[] = [];
  for (let chunk = 0; chunk < FRAMES_PER_CONNECTION / CHUNK; chunk += 1) {
    const sync = syncFrame(`sync ${seed + chunk}`);
    for (const frame of [...fc.sample(arbitrary, { seed: seed + chunk, numRuns: CHUNK }), sync]) {
      client.sendRaw(frame.data, { binary: frame.binary });
      sent.push(frame);
    }
    await client.answerTo(`sync ${seed + chunk}`);
  }
  const oversize = oversizeFrame(maxFrameBytes);
  client.sendRaw(oversize.data);
  const close = await client.closed;
  return { sent, answers: answersAmong(client.frames), close };
}

/** Send every frame at once, as a flood, and wait for the server to end the connection. */
async function floodConnection(wsUrl: string, frames: readonly HostileFrame[]): Promise<HostileRun> {
  const client = await TestClient.connect(wsUrl);
  await client.waitForType('hello');
  for (const frame of frames) client.sendRaw(frame.data, { binary: frame.binary });
  const close = await client.closed;
  return { sent: [...frames], answers: answersAmong(client.frames), close };
}

/** The seed of a hostile connection's first chunk: connections draw from disjoint seeds. */
const seedOf = (connection: number): number => SEED + connection * 1_000;

/** The server still answers REST, accepts a connection and runs a session to completion. */
async function expectServerStillServes(server: RunningServer): Promise<void> {
  const health = await fetch(`${server.baseUrl}/api/health`);
  expect(health.status).toBe(200);
  const client = await TestClient.connect(server.wsUrl);
  await client.waitForType('hello');
  const sessionId = await client.createSession('After the fuzz: what is 6 * 7?');
  expectCompleteStream(sessionId, await client.untilFinished(sessionId));
  await client.close();
}

function kindsOf(frames: readonly HostileFrame[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const frame of frames) counts[frame.kind] = (counts[frame.kind] ?? 0) + 1;
  return counts;
}

describe('seeded fuzz of the frame parser and dispatcher on a real socket, while another client streams', () => {
  describe('with the rate limit raised, so every frame reaches the parser', () => {
    const limits: Partial<Config> = { ratePerSec: 1_000_000, rateBurst: 1_000_000, runStartsPerMinutePerAddress: 1_000_000, runStartsPerMinute: 1_000_000 };
    let server: RunningServer;
    let bystander: Bystander;
    beforeAll(async () => {
      server = await startServer(limits);
      bystander = await startBystander(server.wsUrl, BYSTANDER_TOKEN_DELAY_MS);
    });
    afterAll(() => server.close());

    it('answers each of 3,200 hostile frames from 4 connections exactly once, as the parser says, briefly, while the bystander streams on undisturbed', async () => {
      const { maxFrameBytes } = server.config;
      const arbitrary = hostileFrame({ maxFrameBytes, liveSessionId: bystander.sessionId });
      const connections = Array.from({ length: HOSTILE_CONNECTIONS }, (_, index) => fuzzConnection(server.wsUrl, arbitrary, seedOf(index), maxFrameBytes));
      // From here on, the rest of the bystander's run must arrive whole and in order, during the fuzz and after it.
      const [runs] = await Promise.all([Promise.all(connections), bystander.finish()]);
      const kinds = kindsOf(runs.flatMap((run) => run.sent));
      for (const kind of ['invalid-json', 'non-object', 'wrong-field', 'unknown-type', 'unknown-keys', 'deep-nesting', 'lone-surrogate', 'huge-string', 'missing-target', 'valid', 'binary']) {
        expect(kinds[kind], `frames of kind ${kind}`).toBeGreaterThan(20);
      }
      for (const run of runs) {
        expect(answerProblems(run.sent, run.answers, false)).toEqual([]);
        expect(run.answers).toHaveLength(run.sent.length);
        // Sent last: a frame over the limit is not answered, it ends the connection.
        expect(run.close.code).toBe(1009);
      }
      expect(runs.reduce((total, run) => total + run.sent.length, 0)).toBeGreaterThanOrEqual(HOSTILE_CONNECTIONS * FRAMES_PER_CONNECTION);
    });

    it('still serves health, new connections and new sessions afterwards', async () => {
      await expectServerStillServes(server);
    });
  });

  describe('with the default rate limit', () => {
    let server: RunningServer;
    let bystander: Bystander;
    beforeAll(async () => {
      server = await startServer();
      bystander = await startBystander(server.wsUrl);
    });
    afterAll(() => server.close());

    it('answers a flood of hostile frames in order until the connection is closed with 1008, throttling with RATE_LIMITED, while the bystander streams on undisturbed', async () => {
      const arbitrary = hostileFrame({ maxFrameBytes: server.config.maxFrameBytes, liveSessionId: bystander.sessionId });
      const floods = Array.from({ length: HOSTILE_CONNECTIONS }, (_, index) => floodConnection(server.wsUrl, fc.sample(arbitrary, { seed: seedOf(HOSTILE_CONNECTIONS + index), numRuns: FLOOD_PER_CONNECTION })));
      const [runs] = await Promise.all([Promise.all(floods), bystander.finish()]);
      for (const run of runs) {
        expect(run.close).toEqual(RATE_ABUSE_CLOSE);
        expect(answerProblems(run.sent, run.answers, true)).toEqual([]);
        // The burst went through to the parser; the rest was throttled until the server gave up on the client.
        expect(run.answers.length).toBeGreaterThan(server.config.rateBurst);
        expect(run.answers.slice(0, server.config.rateBurst).some((answer) => answer.type === 'error' && answer.code === 'RATE_LIMITED')).toBe(false);
        expect(run.answers.filter((answer) => answer.type === 'error' && answer.code === 'RATE_LIMITED').length).toBeGreaterThan(0);
      }
    });

    it('still serves health, new connections and new sessions afterwards', async () => {
      await expectServerStillServes(server);
    });
  });
});
