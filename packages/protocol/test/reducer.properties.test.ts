import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ReducerError,
  applyEvents,
  applyEvent,
  createSessionState,
  toSnapshot,
  type ReducerErrorCode,
  type SessionEvent,
  type SessionState,
} from '../src/index.js';
import { legalSession, legalSessionWithCut, type LegalSession } from './support/legal-session.js';

const foldAll = ({ info, events }: LegalSession): SessionState => applyEvents(createSessionState(info), events);

/** A snapshot as it travels: serialised, then parsed by the client. */
const overTheWire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function expectRejected(state: SessionState, event: SessionEvent, code: ReducerErrorCode): void {
  const before = structuredClone(state);
  let thrown: unknown;
  try {
    applyEvent(state, event);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ReducerError);
  expect((thrown as ReducerError).code).toBe(code);
  expect((thrown as ReducerError).event).toBe(event);
  expect(state).toEqual(before);
}

describe('reducer properties over generated legal sessions', () => {
  it('folds every legal session without error, keeping the chain a path from the root', () => {
    fc.assert(
      fc.property(legalSession(), (session) => {
        const state = foldAll(session);
        expect(state.seq).toBe(session.events.length);
        state.chain.forEach((stepId, index) => {
          const step = state.steps.get(stepId)!;
          expect(step.index).toBe(index);
          expect(step.parentId).toBe(index === 0 ? null : state.chain[index - 1]);
          expect(step.status).not.toBe('invalidated');
        });
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same state from a snapshot of any prefix plus the remaining events as from all events', () => {
    fc.assert(
      fc.property(legalSessionWithCut(), ({ session, cut }) => {
        const prefix = applyEvents(createSessionState(session.info), session.events.slice(0, cut));
        const resumed = applyEvents(createSessionState(overTheWire(toSnapshot(prefix))), session.events.slice(cut));
        expect(resumed).toEqual(foldAll(session));
      }),
      { numRuns: 400 },
    );
  });

  it('keeps every step of every branch: invalidated steps are never deleted', () => {
    fc.assert(
      fc.property(legalSession(), (session) => {
        const state = foldAll(session);
        const started = session.events.flatMap((event) => (event.type === 'step.started' || event.type === 'step.corrected' ? [event.step.stepId] : []));
        expect([...state.steps.keys()]).toEqual(started);
        for (const event of session.events) {
          if (event.type === 'steps.invalidated') for (const stepId of event.stepIds) expect(state.steps.get(stepId)?.status).toBe('invalidated');
        }
      }),
      { numRuns: 200 },
    );
  });

  it("makes each completed step's content its deltas joined", () => {
    fc.assert(
      fc.property(legalSession(), (session) => {
        const state = foldAll(session);
        const joined = new Map<string, string>();
        for (const event of session.events) {
          if (event.type === 'step.delta') joined.set(event.stepId, (joined.get(event.stepId) ?? '') + event.text);
        }
        for (const event of session.events) {
          if (event.type === 'step.completed') expect(state.steps.get(event.stepId)?.content).toBe(joined.get(event.stepId) ?? '');
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('reducer refusals leave the state unchanged', () => {
  it('refuses a seq gap', () => {
    fc.assert(
      fc.property(legalSessionWithCut(), fc.integer({ min: 2, max: 50 }), ({ session, cut }, skip) => {
        const state = applyEvents(createSessionState(session.info), session.events.slice(0, cut));
        const next = session.events[cut] ?? { type: 'session.status', sessionId: session.info.sessionId, seq: cut + 1, at: 'now', status: 'running' };
        expectRejected(state, { ...next, seq: state.seq + skip }, 'SEQ_GAP');
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a replayed seq', () => {
    fc.assert(
      fc.property(
        legalSessionWithCut().filter(({ cut }) => cut > 0),
        fc.nat(),
        ({ session, cut }, pick) => {
          const state = applyEvents(createSessionState(session.info), session.events.slice(0, cut));
          expectRejected(state, session.events[pick % cut]!, 'SEQ_REPLAYED');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a delta for an unknown step', () => {
    fc.assert(
      fc.property(legalSessionWithCut(), fc.string({ minLength: 1 }), ({ session, cut }, text) => {
        const state = applyEvents(createSessionState(session.info), session.events.slice(0, cut));
        const delta: SessionEvent = { type: 'step.delta', sessionId: session.info.sessionId, seq: state.seq + 1, at: 'now', stepId: 'st_unknown', text };
        expectRejected(state, delta, 'UNKNOWN_STEP');
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a step not started on the head of the chain', () => {
    fc.assert(
      fc.property(legalSessionWithCut(), fc.nat(), ({ session, cut }, pick) => {
        const state = applyEvents(createSessionState(session.info), session.events.slice(0, cut));
        // Any parent but the head: nothing (when there is a head), a step off the head, or a step that does not exist.
        const candidates = [...(state.chain.length > 0 ? [null] : []), ...state.chain.slice(0, -1), 'st_elsewhere'];
        const parentId = candidates[pick % candidates.length]!;
        const index = parentId === null ? 0 : Math.max(state.chain.indexOf(parentId) + 1, 1);
        const started: SessionEvent = {
          type: 'step.started',
          sessionId: session.info.sessionId,
          seq: state.seq + 1,
          at: 'now',
          step: { stepId: 'st_new', parentId, index, kind: 'thought', status: 'streaming', content: '', revision: state.session.revision },
        };
        expectRejected(state, started, 'NOT_ON_CHAIN');
      }),
      { numRuns: 200 },
    );
  });
});
