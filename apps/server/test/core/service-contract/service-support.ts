import { applyEvent, createSessionState, toSnapshot, type SessionEvent, type SessionInfo, type SessionSnapshotData, type Step } from '@interthought/protocol';
import { expect } from 'vitest';
import type { SessionService } from '../../../src/core/session-service.js';
import type { ReceivedFrame, RecordingPeer } from '../support/recording-peer.js';
import { GATED_THOUGHT } from './contract-agents.js';
import type { ServiceTarget } from './service-target.js';

/** How long a wait for something the services do gives up after: a bound on a hang, never a timing asserted. */
const WAIT_MS = 10_000;

/** The two ends of a target: `a` creates, `b` acts and watches (the same service on a single node). */
export function ends(target: ServiceTarget): { a: SessionService; b: SessionService } {
  const a = target.services[0];
  const b = target.services.at(-1);
  if (a === undefined || b === undefined) throw new Error('A target has at least one service');
  return { a, b };
}

/** Poll until `check` holds (the services answer through the event loop and, in a cluster, through Redis). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The first frame the peer got that matches, once it came. */
export async function nextFrame(peer: RecordingPeer, what: string, matches: (frame: ReceivedFrame) => boolean): Promise<ReceivedFrame> {
  let found: ReceivedFrame | undefined;
  await eventually(() => (found = peer.messages.find(matches)) !== undefined, `${what} (peer ${peer.id} got ${peer.messages.map((m) => m.type).join(', ')})`);
  return found!;
}

/** Wait until the peer got the session's `session.status` event with `status` (the `nth` one, counting from 1). */
export async function statusReached(peer: RecordingPeer, sessionId: string, status: string, nth = 1): Promise<void> {
  await eventually(
    () => statusesOf(peer, sessionId).filter((s) => s === status).length >= nth,
    `session ${sessionId} to be ${status} (peer ${peer.id} saw ${statusesOf(peer, sessionId).join(', ')})`,
  );
}

/** The statuses of the session's `session.status` events the peer got, in order. */
export function statusesOf(peer: RecordingPeer, sessionId: string): string[] {
  return peer.events(sessionId).flatMap((event) => (event.type === 'session.status' ? [event.status] : []));
}

/** The seqs of the session's events the peer got, in order. */
export function seqsOf(peer: RecordingPeer, sessionId: string): number[] {
  return peer.events(sessionId).map((event) => event.seq);
}

/** The seqs are `from + 1`, `from + 2` … without a gap or a repeat. */
export function expectContiguous(seqs: readonly number[], from = 0): void {
  expect(seqs).toEqual(seqs.map((_, index) => from + index + 1));
}

/** The peer's frames of the session without the request ids: what a plain subscriber gets. */
export function withoutRequestIds(frames: readonly ReceivedFrame[]): ReceivedFrame[] {
  return frames.map(({ requestId: _requestId, ...rest }) => rest as ReceivedFrame);
}

/** The session's snapshot, which must exist. */
export async function snapshotOf(service: SessionService, sessionId: string): Promise<SessionSnapshotData> {
  const snapshot = await service.snapshot(sessionId);
  if (snapshot === undefined) throw new Error(`Session ${sessionId} has no snapshot`);
  return snapshot;
}

/** The steps of the snapshot's current chain, root first. */
export function chainOf(snapshot: SessionSnapshotData): Step[] {
  return snapshot.chain.map((id) => {
    const step = snapshot.steps.find((candidate) => candidate.stepId === id);
    if (step === undefined) throw new Error(`Step ${id} of the chain is not in the snapshot`);
    return step;
  });
}

/** Fold events with the protocol reducer, from a snapshot or from the session's summary before its first event, into a snapshot. */
export function foldInto(events: readonly SessionEvent[], from: SessionSnapshotData | SessionInfo): SessionSnapshotData {
  const state = createSessionState(from);
  for (const event of events) applyEvent(state, event);
  return toSnapshot(state);
}

/** A `script` session created on `a` by `creator`, run to `completed`. */
export async function completedSession(target: ServiceTarget, task = 'Add two and three'): Promise<{ sessionId: string; creator: RecordingPeer }> {
  const { a } = ends(target);
  const creator = target.peer('creator');
  const { sessionId } = await a.create({ task }, { peer: creator });
  await statusReached(creator, sessionId, 'completed');
  return { sessionId, creator };
}

/** A `gated` session created on `a` by `creator`, held at its gate after its first thought (release with `open()`). */
export async function heldSession(target: ServiceTarget, task = 'Hold on'): Promise<{ sessionId: string; creator: RecordingPeer; open: () => void }> {
  const { a } = ends(target);
  const creator = target.peer('creator');
  const { sessionId } = await a.create({ task, agent: 'gated' }, { peer: creator }, );
  await nextFrame(creator, 'the first thought', (frame) => frame.type === 'step.completed' && frame.sessionId === sessionId);
  const gate = target.gates.of(task);
  return { sessionId, creator, open: () => gate.open() };
}

/** The summary the peer's `session.created` of the session carried (what the session is before its first event). */
export function createdInfo(peer: RecordingPeer, sessionId: string): SessionInfo {
  const created = peer.ofType('session.created').find((frame) => (frame.session as SessionInfo).sessionId === sessionId);
  if (created === undefined) throw new Error(`Peer ${peer.id} got no session.created of ${sessionId}`);
  return created.session as SessionInfo;
}

/** The highest seq of the session the peer got (0 before any). */
export function lastSeqOf(peer: RecordingPeer, sessionId: string): number {
  return Math.max(0, ...seqsOf(peer, sessionId));
}

export { GATED_THOUGHT };
