import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ReducerError,
  ServerMessageSchema,
  applyEvent,
  applyEvents,
  createSessionState,
  firstSeqOf,
  toSnapshot,
  type SessionEvent,
  type SessionState,
  type StepDeltaEvent,
} from '../src/index.js';
import { legalSession, sessionInfo, type LegalSession } from './support/legal-session.js';

const SID = 'sess_1';
const at = (seq: number): string => new Date(Date.UTC(2025, 0, 1) + seq * 1_000).toISOString();

function started(seq: number): SessionEvent {
  return {
    type: 'step.started',
    sessionId: SID,
    seq,
    at: at(seq),
    step: { stepId: 'st_1', parentId: null, index: 0, kind: 'thought', status: 'streaming', content: '', revision: 0 },
  };
}

function delta(seq: number, text: string, fromSeq?: number): StepDeltaEvent {
  const event: StepDeltaEvent = { type: 'step.delta', sessionId: SID, seq, at: at(seq), stepId: 'st_1', text };
  if (fromSeq !== undefined) event.fromSeq = fromSeq;
  return event;
}

/** A session whose first step has started (seq 1). */
function streaming(): SessionState {
  return applyEvent(createSessionState(sessionInfo(SID)), started(1));
}

function expectRejected(state: SessionState, event: SessionEvent, code: ReducerError['code']): void {
  const before = structuredClone(state);
  expect(() => applyEvent(state, event)).toThrow(expect.objectContaining({ name: 'ReducerError', code }));
  expect(state).toEqual(before);
}

/**
 * Coalesce as a server may for a slow reader: each run of consecutive deltas of one step is cut
 * into chunks where `cuts` says so, and each chunk becomes one delta with `fromSeq`…`seq`.
 */
function coalesce(events: readonly SessionEvent[], cuts: readonly boolean[]): SessionEvent[] {
  const out: SessionEvent[] = [];
  let open: StepDeltaEvent | undefined;
  let cut = 0;
  for (const event of events) {
    const continues = event.type === 'step.delta' && open !== undefined && open.stepId === event.stepId && event.seq === open.seq + 1;
    const split = cuts[cut++ % cuts.length] ?? false;
    if (continues && !split && open) {
      open.text += event.text;
      open.fromSeq = open.fromSeq ?? open.seq;
      open.seq = event.seq;
      open.at = event.at;
      continue;
    }
    open = event.type === 'step.delta' ? { ...event } : undefined;
    out.push(open ?? event);
  }
  return out;
}

const foldAll = ({ info, events }: LegalSession): SessionState => applyEvents(createSessionState(info), events);

describe('applyEvent with coalesced deltas', () => {
  it('folds a coalesced delta: its joined text is appended and the state moves to its last seq', () => {
    const state = streaming();
    applyEvent(state, delta(4, 'Hello, ', 2));
    expect(state.seq).toBe(4);
    expect(state.steps.get('st_1')?.content).toBe('Hello, ');
    applyEvent(state, delta(5, 'world'));
    expect(state.steps.get('st_1')?.content).toBe('Hello, world');
  });

  it('folds a coalesced delta to the same state as the deltas it stands for', () => {
    const one = applyEvents(streaming(), [delta(2, 'a'), delta(3, 'b'), delta(4, 'c')]);
    const merged = applyEvent(streaming(), delta(4, 'abc', 2));
    expect(toSnapshot(merged)).toEqual(toSnapshot(one));
  });

  it('refuses a coalesced delta that starts past the next seq (SEQ_GAP)', () => {
    expectRejected(streaming(), delta(6, 'late', 3), 'SEQ_GAP');
  });

  it('refuses a coalesced delta whose first seq was already applied (SEQ_REPLAYED)', () => {
    const state = applyEvent(streaming(), delta(2, 'a'));
    expectRejected(state, delta(4, 'abc', 2), 'SEQ_REPLAYED');
  });

  it('refuses a coalesced delta whose fromSeq is after its seq', () => {
    expectRejected(streaming(), delta(1, 'backwards', 2), 'SEQ_REPLAYED');
  });

  it('reads the first seq of an event from fromSeq on a coalesced delta, otherwise from seq', () => {
    expect(firstSeqOf(delta(9, 'x', 4))).toBe(4);
    expect(firstSeqOf(delta(9, 'x'))).toBe(9);
    expect(firstSeqOf(started(3))).toBe(3);
  });

  it('accepts fromSeq in the outbound schema', () => {
    expect(ServerMessageSchema.safeParse(delta(9, 'x', 4)).success).toBe(true);
    expect(ServerMessageSchema.safeParse({ ...delta(9, 'x'), fromSeq: 0 }).success).toBe(false);
  });
});

describe('coalesced deltas over generated legal sessions', () => {
  it('folds a session with coalesced deltas to the same state as the individual deltas', () => {
    fc.assert(
      fc.property(legalSession(), fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), (session, cuts) => {
        const coalesced = coalesce(session.events, cuts);
        const folded = applyEvents(createSessionState(session.info), coalesced);
        expect(folded).toEqual(foldAll(session));
      }),
      { numRuns: 400 },
    );
  });
});
