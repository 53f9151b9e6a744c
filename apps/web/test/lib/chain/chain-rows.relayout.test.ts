import { applyEvents, createSessionState, type StepKind } from '@interthought/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutChain, relayoutFrom } from '$lib/chain/chain-rows.js';
import { SessionView } from '$lib/chain/session-view.svelte.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';

const stateOf = (log: EventLog) => applyEvents(createSessionState(log.info), log.events);

/** A long chain of thoughts and actions in turn, every step completed. */
function longChain(steps: number): EventLog {
  const log = new EventLog();
  for (let i = 0; i < steps; i++) log.step(i % 2 === 0 ? 'thought' : 'action', `step ${i}`);
  return log;
}

describe('relayoutFrom', () => {
  it('lays out a grown chain exactly as a full layout does', () => {
    const log = longChain(40);
    const before = layoutChain(stateOf(log));
    const from = log.chain.length;
    log.step('thought', 'one more');
    log.step('thought', 'and another');
    const state = stateOf(log);
    expect(relayoutFrom(state, before, from)).toEqual(layoutChain(state));
  });

  it('keeps the rows above the change as the same objects, so the view leaves them alone', () => {
    const log = longChain(2_000);
    const before = layoutChain(stateOf(log));
    const from = log.chain.length;
    log.step('action', 'the 2,001st step');
    const after = relayoutFrom(stateOf(log), before, from);
    expect(after.rows).toHaveLength(2_001);
    expect(after.rows.slice(0, 2_000).every((row, i) => row === before.rows[i])).toBe(true);
  });

  it('reopens a run of thoughts that the new steps continue', () => {
    const log = new EventLog();
    log.step('action', 'act');
    log.step('thought', 'one');
    log.step('thought', 'two');
    const before = layoutChain(stateOf(log));
    const third = log.step('thought', 'three');
    const state = stateOf(log);
    const after = relayoutFrom(state, before, 3);
    expect(after.rows.map((row) => row.type)).toEqual(['step', 'thoughts']);
    expect(after.rows[1]?.type === 'thoughts' && after.rows[1].stepIds).toHaveLength(3);
    expect(after.rows[1]?.type === 'thoughts' && after.rows[1].stepIds[2]).toBe(third);
    expect(after).toEqual(layoutChain(state));
  });
});

/** One thing that can happen to a live session between two frames. */
type Operation =
  | { type: 'step'; kind: StepKind; completes: boolean }
  | { type: 'correct'; at: number }
  | { type: 'frame' };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constant('step' as const), kind: fc.constantFrom<StepKind>('thought', 'thought', 'action', 'observation'), completes: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('correct' as const), at: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('frame' as const) }) },
);

describe('SessionView: the layout it keeps up to date', () => {
  it('always equals a full layout of its state, whatever arrives between frames', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
        const log = new EventLog();
        const frames = new ManualFrames();
        const session = new SessionView(log.sessionId, { schedule: frames.schedule });
        session.loadSnapshot(log.emptySnapshot());
        let sent = 0;
        let streaming: string | undefined;
        const frame = () => {
          for (const event of log.events.slice(sent)) session.enqueue(event);
          sent = log.events.length;
          frames.run();
          expect(session.layout).toEqual(layoutChain(session.state, session.selection));
        };
        for (const op of operations) {
          if (op.type === 'frame') {
            frame();
          } else if (op.type === 'correct') {
            if (log.chain.length === 0) continue;
            log.correct(log.chain[op.at % log.chain.length]!, 'corrected');
            streaming = undefined;
          } else {
            if (streaming !== undefined) log.complete(streaming);
            streaming = log.start(op.kind);
            log.delta(streaming, 'text ');
            if (op.completes) {
              log.complete(streaming);
              streaming = undefined;
            }
          }
        }
        frame();
      }),
      { seed: 18, numRuns: 300 },
    );
  });
});
