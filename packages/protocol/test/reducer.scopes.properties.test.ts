import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEvents, chainOfScope, createSessionState, enclosingScopes, toSnapshot, type SessionState } from '../src/index.js';
import { buildParallelSession, interleave, scopeActions, seededOrder, type ParallelSession, type TurnChooser } from './support/parallel-scopes.js';

const fold = (session: ParallelSession, choose?: TurnChooser): SessionState => applyEvents(createSessionState(session.info), interleave(session, choose));

/** Drop `revision` (corrections number it in the order the server applied them, so it alone depends on the interleaving). */
function withoutRevision<T extends { revision?: number }>(value: T): Omit<T, 'revision'> {
  const { revision, ...rest } = value;
  void revision;
  return rest;
}

/** A state in a form that does not depend on the order in which independent things happened: maps sorted by key. */
function comparable(state: SessionState) {
  const byKey = <V>(map: Map<string, V>): [string, V][] => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    session: withoutRevision(state.session),
    seq: state.seq,
    chain: state.chain,
    steps: byKey(state.steps).map(([id, step]) => [id, withoutRevision(step)]),
    children: byKey(state.children),
    subagents: byKey(state.subagents),
    queued: state.queued,
    shares: state.shares,
  };
}

/** Every chain (the root's and each scope's) is a path: index i holds a step of that scope at index i, under the one before. */
function expectChainsLinked(state: SessionState): void {
  for (const scope of [undefined, ...state.subagents.keys()]) {
    const chain = chainOfScope(state, scope)!;
    chain.forEach((stepId, index) => {
      const step = state.steps.get(stepId)!;
      expect(step.scope).toBe(scope);
      expect(step.index).toBe(index);
      expect(step.parentId).toBe(index === 0 ? null : chain[index - 1]);
      expect(step.status).not.toBe('invalidated');
    });
  }
}

const parallelSession = fc.array(scopeActions, { minLength: 2, maxLength: 4 }).map((scopes) => buildParallelSession(scopes));
/** Seeds of random interleavings, several per session. */
const interleavings = fc.array(fc.integer(), { minLength: 1, maxLength: 4 });

describe('the reducer with parallel sub-agents (property)', () => {
  it('folds every interleaving of the scopes’ events to the same state: steps, every chain, sub-agents, usage', () => {
    fc.assert(
      fc.property(parallelSession, interleavings, (session, orders) => {
        const written = fold(session);
        expectChainsLinked(written);
        const expected = comparable(written);
        for (const seed of orders) expect(comparable(fold(session, seededOrder(seed)))).toEqual(expected);
      }),
      { numRuns: 250, seed: 2412 },
    );
  });

  it('totals each sub-agent’s usage over its own calls and its sub-agents’, whatever the interleaving, and rebuilds it from a snapshot', () => {
    fc.assert(
      fc.property(parallelSession, interleavings, (session, orders) => {
        for (const seed of orders) {
          const events = interleave(session, seededOrder(seed));
          const state = applyEvents(createSessionState(session.info), events);
          const expected = new Map<string, { inputTokens: number; outputTokens: number; calls: number }>();
          for (const event of events) {
            if (event.type !== 'usage.recorded' || event.stepIds.length === 0) continue;
            for (const scope of enclosingScopes(state, event.stepIds[event.stepIds.length - 1]!)) {
              const totals = expected.get(scope) ?? { inputTokens: 0, outputTokens: 0, calls: 0 };
              expected.set(scope, { inputTokens: totals.inputTokens + event.usage.inputTokens, outputTokens: totals.outputTokens + event.usage.outputTokens, calls: totals.calls + 1 });
            }
          }
          for (const subagent of state.subagents.values()) {
            expect(subagent.status).toBe('completed');
            const usage = subagent.usage === undefined ? undefined : { inputTokens: subagent.usage.inputTokens, outputTokens: subagent.usage.outputTokens, calls: subagent.usage.calls };
            expect(usage, subagent.scope).toEqual(expected.get(subagent.scope));
          }
          expect(createSessionState(JSON.parse(JSON.stringify(toSnapshot(state))))).toEqual(state);
        }
      }),
      { numRuns: 100, seed: 77 },
    );
  });

  it('interleaves for real: some orders differ from the written one', () => {
    const session = buildParallelSession([
      [{ kind: 'start', stepKind: 'thought' }, { kind: 'delta', text: 'a' }],
      [{ kind: 'start', stepKind: 'thought' }, { kind: 'delta', text: 'b' }],
    ]);
    const written = interleave(session).map((event) => event.type + ('stepId' in event ? event.stepId : ''));
    const other = interleave(session, (ready) => ready - 1).map((event) => event.type + ('stepId' in event ? event.stepId : ''));
    expect(other).not.toEqual(written);
    expect([...other].sort()).toEqual([...written].sort());
  });
});
