import { nowMicros } from '../../apps/server/src/agents/firehose/firehose-text.js';
import { BenchSocket, connectMany, mergeErrors, serverCloses } from './bench-socket.js';
import { DeltaMeter } from './delta-meter.js';
import type { FollowGroupResult, FollowJob, FollowResult, SubscriberGroup } from './jobs.js';
import { SeqTracker, sumSeqChecks } from './seq-tracker.js';
import { createRequest, createdSessionId } from './stream-workload.js';

/** How long the first delta may take once the sessions exist (covers the task's start delay). */
const FIRST_DELTA_TIMEOUT_MS = 30_000;
const CANCEL_TIMEOUT_MS = 5_000;
const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
const INTERRUPTED: ReadonlySet<string> = new Set(['interrupted']);

/** One subscriber: its connection, the index of the session it follows, and its seq check. */
interface Follower {
  socket: BenchSocket;
  session: number;
  tracker: SeqTracker;
  /** Resolves when the server closes the connection (it will see no end then). */
  closed: Promise<void>;
}

interface GroupFleet {
  spec: SubscriberGroup;
  meter: DeltaMeter;
  followers: Follower[];
}

/** Create the sessions on the owner, one connection each; the creators unsubscribe at once, so they read nothing more. */
async function createSessions(job: FollowJob): Promise<{ creators: BenchSocket[]; sessionIds: string[] }> {
  const creators = await connectMany(job.ownerUrl, job.sessions);
  try {
    const sessionIds = await Promise.all(
      creators.map(async (socket) => {
        socket.onDelta = () => undefined;
        const sessionId = createdSessionId(await socket.request(createRequest(job.task)));
        await socket.request({ type: 'session.unsubscribe', sessionId });
        return sessionId;
      }),
    );
    return { creators, sessionIds };
  } catch (error) {
    for (const socket of creators) socket.close();
    throw error;
  }
}

/** Connect a group's subscribers and subscribe each to its session from `afterSeq: 0`. */
async function openGroup(spec: SubscriberGroup, sessionIds: string[], endStatuses: ReadonlySet<string>): Promise<GroupFleet> {
  const meter = new DeltaMeter();
  const sockets = await connectMany(spec.url, spec.perSession * sessionIds.length);
  const followers = sockets.map((socket, index): Follower => {
    const tracker = new SeqTracker(0, endStatuses, nowMicros);
    const measure = meter.handler();
    socket.onDelta = (frame) => {
      measure(frame);
      tracker.delta(frame);
    };
    socket.onControl = (frame) => tracker.control(frame);
    const closed = new Promise<void>((resolve) => (socket.onServerClose = () => resolve()));
    return { socket, session: Math.floor(index / spec.perSession), tracker, closed };
  });
  try {
    await Promise.all(followers.map(({ socket, session }) => socket.request({ type: 'session.subscribe', sessionId: sessionIds[session], afterSeq: 0 })));
  } catch (error) {
    for (const socket of sockets) socket.close();
    throw error;
  }
  return { spec, meter, followers };
}

/** Wait until every follower saw the end, its connection was closed, or `timeoutMs` passed. */
async function awaitEnds(groups: GroupFleet[], timeoutMs: number): Promise<void> {
  const followers = groups.flatMap((group) => group.followers);
  await Promise.all(followers.map(({ tracker, closed }) => Promise.race([tracker.ended(timeoutMs), closed])));
}

function groupResult(group: GroupFleet, sessions: number, windowMs: number): FollowGroupResult {
  const { meter, followers, spec } = group;
  const endSeenAt: (number | null)[] = Array.from({ length: sessions }, () => null);
  const lastSeqs: number[] = Array.from({ length: sessions }, () => Number.POSITIVE_INFINITY);
  for (const { session, tracker } of followers) {
    lastSeqs[session] = Math.min(lastSeqs[session] ?? 0, tracker.cursor);
    const seen = tracker.endedAt;
    const earliest = endSeenAt[session];
    if (seen !== undefined && (earliest === null || earliest === undefined || seen < earliest)) endSeenAt[session] = seen;
  }
  const sockets = followers.map((follower) => follower.socket);
  return {
    label: spec.label,
    subscribers: followers.length,
    deliveredPerSec: (meter.measured / windowMs) * 1_000,
    deltasMeasured: meter.measured,
    latency: meter.latency.summary(),
    orderViolations: meter.orderViolations,
    coalescedFrames: meter.coalescedFrames,
    closedByServer: serverCloses(sockets),
    errors: mergeErrors(sockets),
    seq: sumSeqChecks(
      followers.map((follower) => follower.tracker),
      (tracker) => tracker.endedAt === undefined,
    ),
    endSeenAt,
    lastSeqs,
  };
}

/** The last seq of each session as the subscribers that saw its end had it. */
function finalSeqs(groups: GroupFleet[], sessions: number): (number | null)[] {
  const seqs: (number | null)[] = Array.from({ length: sessions }, () => null);
  for (const { session, tracker } of groups.flatMap((group) => group.followers)) {
    if (tracker.endedAt !== undefined) seqs[session] = Math.max(seqs[session] ?? 0, tracker.cursor);
  }
  return seqs;
}

/**
 * Sessions created on one server and followed from others, each group measured apart; every
 * subscriber's seqs are checked from 1 to the session's end (see `FollowJob`).
 */
export async function runFollow(job: FollowJob, holding: (connections: number) => Promise<void>): Promise<FollowResult> {
  const started = performance.now();
  const endStatuses = job.end === 'cancel' ? FINAL_STATUSES : INTERRUPTED;
  const { creators, sessionIds } = await createSessions(job);
  const cancelAll = () =>
    Promise.all(sessionIds.map((sessionId, index) => creators[index]?.request({ type: 'session.cancel', sessionId }, CANCEL_TIMEOUT_MS).catch(() => undefined)));
  const groups: GroupFleet[] = [];
  try {
    for (const spec of job.groups) groups.push(await openGroup(spec, sessionIds, endStatuses));
    const readyAt = nowMicros();
    const setupMs = performance.now() - started;
    const firstDeltas = await Promise.all(groups.map((group) => group.meter.firstDelta(FIRST_DELTA_TIMEOUT_MS)));
    const opensAt = Math.max(readyAt, ...firstDeltas);
    const windows = await Promise.all(groups.map((group) => group.meter.measure(opensAt, job.warmupMs, job.measureMs)));
    const windowMs = windows[0] ?? job.measureMs;
    if (job.end === 'cancel') await cancelAll();
    else await holding(creators.length + groups.reduce((sum, group) => sum + group.followers.length, 0));
    await awaitEnds(groups, job.endTimeoutMs);
    return {
      kind: 'follow',
      sessionIds,
      windowMs,
      groups: groups.map((group) => groupResult(group, sessionIds.length, windowMs)),
      finalSeqs: finalSeqs(groups, sessionIds.length),
      creatorErrors: mergeErrors(creators),
      setupMs: Math.round(setupMs),
    };
  } catch (error) {
    // No run may outlive a failed measurement.
    await cancelAll();
    throw error;
  } finally {
    for (const socket of [...creators, ...groups.flatMap((group) => group.followers.map((follower) => follower.socket))]) socket.close();
  }
}
