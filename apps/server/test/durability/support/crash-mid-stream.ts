import type { SessionEvent, SessionInfo } from '@interthought/protocol';
import { expect } from 'vitest';
import type { RawClient } from './raw-client.js';
import { startDurableServer, type DurableServer } from './durable-server.js';
import { range, seqsOf } from './log-checks.js';

export const CRASH_TASK = 'A shop sells pens at $1.25 each. How much do 12 pens cost after a 15% discount?';
/** The run has about 70 events; the crash comes once the client has seen this many, well before the end. */
const CRASH_AFTER_SEQ = 20;

export const parseEvents = (texts: readonly string[]): SessionEvent[] => texts.map((text) => JSON.parse(text) as SessionEvent);

/** What the store kept across a `kill -9`, as the restarted server's clients see it. */
export interface CrashOutcome {
  second: DurableServer;
  sessionId: string;
  /** The event texts the watcher saw before the crash (seqs 1..n). */
  seen: string[];
  /** The client that had seen seq n, subscribed again after it on the restarted server. */
  resumed: RawClient;
  lastSeq: number;
  /** The whole durable log, as a fresh subscriber from 0 got it. */
  log: string[];
}

/**
 * One store's durability, whichever store `env` names (the same checks for each): a run killed
 * with `kill -9` mid-stream, the server restarted on the same store, the run listed as
 * interrupted, a client resuming after its cursor gapless, and a fresh subscriber's log equal,
 * byte for byte, to what was seen before the crash followed by what the resumed client got.
 */
export async function crashMidStream(env: Record<string, string>, connect: (wsUrl: string) => Promise<RawClient>, storedAt: string): Promise<CrashOutcome> {
  const first = await startDurableServer(env);
  expect(first.stdout()).toContain(storedAt);
  const watcher = await connect(first.wsUrl);
  const sessionId = await watcher.client.createSession(CRASH_TASK);
  await watcher.untilSeq(sessionId, CRASH_AFTER_SEQ);
  await first.crash();

  // Every event a client saw was durable before it was sent: all of them come back after the restart.
  const seen = watcher.eventTexts(sessionId);
  const n = seen.length;
  expect(seqsOf(parseEvents(seen))).toEqual(range(1, n));
  // Mid-stream for real: the run had not finished when the process died.
  expect(parseEvents(seen).some((event) => event.type === 'session.status' && event.status !== 'running')).toBe(false);

  const second = await startDurableServer(env);
  expect(second.stdout()).toContain('1 session was running when the server last stopped: marked interrupted');
  const listed = (await (await fetch(`${second.url}/api/sessions`)).json()) as { sessions: SessionInfo[] };
  expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, task: CRASH_TASK, status: 'interrupted' })]);

  // The client that had seen seq n picks up after it: every event written after n, once, in order.
  const resumed = await connect(second.wsUrl);
  const subscribed = await resumed.subscribe(sessionId, n);
  expect(subscribed).toMatchObject({ type: 'session.subscribed', sessionId, afterSeq: n });
  const lastSeq = (subscribed as { lastSeq: number }).lastSeq;
  expect(lastSeq).toBeGreaterThan(n);
  await resumed.untilSeq(sessionId, lastSeq);
  const replay = resumed.eventTexts(sessionId);

  // The durable log, as a fresh subscriber from 0 gets it.
  const fresh = await connect(second.wsUrl);
  expect(await fresh.subscribe(sessionId, 0)).toMatchObject({ type: 'session.subscribed', afterSeq: 0, lastSeq });
  await fresh.untilSeq(sessionId, lastSeq);
  const log = fresh.eventTexts(sessionId);
  expect(log).toHaveLength(lastSeq);
  expect(log.slice(0, n)).toEqual(seen);
  expect(replay).toEqual(log.slice(n));
  return { second, sessionId, seen, resumed, lastSeq, log };
}
