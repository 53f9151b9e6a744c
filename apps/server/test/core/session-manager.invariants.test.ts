import fc from 'fast-check';
import { applyEvents, createSessionState, type SessionEvent, type SessionSnapshot, type SessionSnapshotData } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { SessionError } from '../../src/core/session-error.js';
import { createHarness, fold, storedEvents, turns, until, type Harness } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';

/** One thing a user (or the event loop) does to a running session. */
type Command =
  | { op: 'wait'; turns: number }
  | { op: 'correct'; pick: number; valid: boolean; baseRevision: number | undefined }
  | { op: 'pause' }
  | { op: 'resume' }
  | { op: 'subscribe'; cursor: number | undefined };

const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constant('wait' as const), turns: fc.integer({ min: 1, max: 12 }) }),
  fc.record({
    op: fc.constant('correct' as const),
    pick: fc.nat(),
    valid: fc.boolean(),
    baseRevision: fc.option(fc.nat({ max: 4 }), { nil: undefined }),
  }),
  fc.record({ op: fc.constant('pause' as const) }),
  fc.record({ op: fc.constant('resume' as const) }),
  fc.record({ op: fc.constant('subscribe' as const), cursor: fc.option(fc.nat({ max: 40 }), { nil: undefined }) }),
);

const EXPECTED_REFUSALS = new Set(['INVALID_STATE', 'STEP_INVALIDATED', 'STALE_REVISION', 'BAD_CORRECTION', 'BAD_CURSOR']);

/** What the generated runs did, so the property is known not to hold vacuously. */
const tally = { accepted: 0, refused: 0, subscribed: 0 };

async function apply(h: Harness, sessionId: string, command: Command, peers: RecordingPeer[]): Promise<void> {
  const snapshot = (await h.manager.snapshot(sessionId))!;
  switch (command.op) {
    case 'wait':
      return turns(command.turns);
    case 'correct': {
      // Any step, including invalidated ones: the refusals are part of what is exercised.
      const step = snapshot.steps[command.pick % Math.max(1, snapshot.steps.length)];
      if (!step) return;
      const content = step.kind === 'tool_call' ? (command.valid ? `{"a":${command.pick},"b":1}` : '{"a":') : `Corrected #${command.pick}`;
      const input = { sessionId, stepId: step.stepId, content, ...(command.baseRevision === undefined ? {} : { baseRevision: command.baseRevision }) };
      await h.manager.correct(input);
      tally.accepted += 1;
      return;
    }
    case 'pause':
      await h.manager.pause(sessionId);
      return;
    case 'resume':
      await h.manager.resume(sessionId);
      return;
    case 'subscribe': {
      const peer = new RecordingPeer(`p${peers.length}`);
      await h.manager.subscribe(sessionId, { peer }, command.cursor);
      peers.push(peer);
      tally.subscribed += 1;
      return;
    }
  }
}

/** What a subscriber rebuilds from what it received: the snapshot or replay, then live events. */
function rebuiltBy(peer: RecordingPeer, sessionId: string) {
  const [first] = peer.messages;
  const events = peer.events(sessionId);
  if (first?.type === 'session.snapshot') return applyEvents(createSessionState(first as unknown as SessionSnapshot), events);
  return undefined;
}

async function expectLogConsistent(h: Harness, sessionId: string, peers: RecordingPeer[]): Promise<void> {
  const log = await storedEvents(h.store, sessionId);
  const live = (await h.manager.snapshot(sessionId))!;
  expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
  const folded = fold(log);
  expect([...folded.steps.values()]).toEqual(live.steps);
  expect(folded.chain).toEqual(live.chain);
  expect(folded.seq).toBe(live.seq);
  expect(folded.session.status).toBe(live.session.status);
  expect(folded.session.revision).toBe(live.session.revision);

  const deltas = new Map<string, string>();
  for (const event of log) if (event.type === 'step.delta') deltas.set(event.stepId, (deltas.get(event.stepId) ?? '') + event.text);
  for (const step of live.steps) {
    if (step.correctionOf === undefined) expect(step.content).toBe(deltas.get(step.stepId) ?? '');
  }
  for (const event of log) {
    if (event.type === 'step.completed') expect(event.content).toBe(deltas.get(event.stepId) ?? '');
  }
  live.chain.forEach((id, index) => {
    const step = live.steps.find((candidate) => candidate.stepId === id)!;
    expect(step.status).not.toBe('invalidated');
    expect(step.index).toBe(index);
    expect(step.parentId).toBe(index === 0 ? null : live.chain[index - 1]);
  });

  for (const peer of peers) {
    const received = peer.events(sessionId);
    const seqs = received.map((event: SessionEvent) => event.seq);
    const from = seqs[0] ?? live.seq + 1;
    expect(seqs).toEqual(Array.from({ length: live.seq - from + 1 }, (_, index) => from + index));
    const rebuilt = rebuiltBy(peer, sessionId);
    if (rebuilt) {
      expect([...rebuilt.steps.values()]).toEqual(live.steps);
      expect(rebuilt.chain).toEqual(live.chain);
    } else {
      expect(received).toEqual(log.slice(from - 1));
    }
  }
}

/**
 * A refusal changes nothing. A session that was not running has no new event at all; a running
 * one goes on streaming while the command is refused (the command awaits a snapshot first, and
 * the agent writes meanwhile), so there only the refused command's own kind of event is absent.
 */
async function expectNothingWritten(h: Harness, sessionId: string, before: SessionSnapshotData, command: Command): Promise<void> {
  const after = (await h.manager.snapshot(sessionId))!;
  if (before.session.status !== 'running') {
    expect(after.seq).toBe(before.seq);
    return;
  }
  const added = (await storedEvents(h.store, sessionId)).filter((event) => event.seq > before.seq);
  const own = added.filter((event) =>
    command.op === 'correct' ? event.type === 'step.corrected'
    : command.op === 'pause' || command.op === 'resume' ? event.type === 'session.status' && (event.status === 'paused' || event.status === 'running')
    : false,
  );
  expect(own).toEqual([]);
}

describe('SessionManager invariants under any sequence of user actions', () => {
  it('keeps the log, the live state and every subscriber\'s view identical', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArbitrary, { minLength: 1, maxLength: 25 }), async (commands) => {
        const h = createHarness();
        const peers: RecordingPeer[] = [];
        try {
          const { sessionId } = await h.manager.create({ task: 'Add two and three' });
          for (const command of commands) {
            const before = (await h.manager.snapshot(sessionId))!;
            try {
              await apply(h, sessionId, command, peers);
            } catch (error) {
              if (!(error instanceof SessionError) || !EXPECTED_REFUSALS.has(error.code)) throw error;
              tally.refused += 1;
              await expectNothingWritten(h, sessionId, before, command);
            }
          }
          if ((await h.manager.snapshot(sessionId))!.session.status === 'paused') await h.manager.resume(sessionId);
          await until(async () => (await h.manager.snapshot(sessionId))!.session.status === 'completed', 'completion');
          await turns(2);
          await expectLogConsistent(h, sessionId, peers);
        } finally {
          await h.manager.shutdown();
        }
      }),
      { numRuns: 60 },
    );
    expect(tally.accepted).toBeGreaterThan(10);
    expect(tally.refused).toBeGreaterThan(5);
    expect(tally.subscribed).toBeGreaterThan(10);
  });
});
