import { describe, expect, it } from 'vitest';
import {
  SESSION_EVENT_TRAITS,
  SESSION_EVENT_TYPES,
  applyEvent,
  changesSummary,
  createSessionState,
  isKnownSessionEvent,
  touchedSteps,
  traitsOf,
  type SessionEvent,
  type SessionState,
} from '../src/index.js';
import { eventBuilder, stepOf } from './support/event-builders.js';

const SID = 's_traits';
const { ev } = eventBuilder(SID);

/** One session that sends every event type at least once, in an order the reducer accepts. */
function everyEvent(): SessionEvent[] {
  const share = { shareId: 'sh1', role: 'viewer' as const, createdAt: '2025-01-01T00:00:00.000Z', by: 'u' };
  return [
    ev({ type: 'session.status', status: 'running' }),
    ev({ type: 'steps.copied', steps: [stepOf('c1', null, 0, 'thought', 'completed', 'copied')], from: { sessionId: 'src', stepId: 'x' }, revision: 2 }),
    ev({ type: 'step.started', step: stepOf('t1', 'c1', 1, 'thought') }),
    ev({ type: 'step.delta', stepId: 't1', text: 'I need ' }),
    ev({ type: 'step.completed', stepId: 't1', content: 'I need a tool.' }),
    ev({ type: 'step.started', step: stepOf('k1', 't1', 2, 'tool_call') }),
    ev({ type: 'step.completed', stepId: 'k1', content: '{}', tool: 'calculator' }),
    ev({ type: 'usage.recorded', model: 'm', usage: { inputTokens: 5, outputTokens: 2 }, stepIds: ['t1', 'k1'] }),
    ev({ type: 'approval.requested', stepId: 'k1' }),
    ev({ type: 'approval.resolved', stepId: 'k1', decision: 'approved', by: 'u', remember: 'session' }),
    ev({ type: 'approvals.forgotten', tools: ['calculator'], by: 'u' }),
    ev({ type: 'breakpoint.hit', stepId: 'k1', breakpoint: { kind: 'tool_call' }, index: 0 }),
    ev({ type: 'message.queued', stepId: 'm1', text: 'and then?', mode: 'queue' }),
    ev({ type: 'step.started', step: stepOf('m1', 'k1', 3, 'user_message', 'completed', 'and then?') }),
    ev({ type: 'step.started', step: stepOf('d1', 'm1', 4, 'tool_call') }),
    ev({ type: 'step.completed', stepId: 'd1', content: '{"task":"Check it."}', tool: 'delegate' }),
    ev({ type: 'subagent.started', scope: 'd1', depth: 1, name: 'checker', agent: 'demo', task: 'Check it.' }),
    ev({ type: 'step.started', step: { ...stepOf('a1', null, 0, 'thought'), scope: 'd1' } }),
    ev({ type: 'step.delta', stepId: 'a1', text: 'Fine.' }),
    ev({ type: 'step.completed', stepId: 'a1', content: 'Fine.' }),
    ev({ type: 'usage.recorded', model: 'm', usage: { inputTokens: 3, outputTokens: 1 }, stepIds: ['a1'] }),
    ev({ type: 'subagent.status', scope: 'd1', status: 'completed' }),
    ev({ type: 'step.started', step: stepOf('q1', 'd1', 5, 'tool_call') }),
    ev({ type: 'step.completed', stepId: 'q1', content: '{"question":"Which one?"}', tool: 'ask_user' }),
    ev({ type: 'input.requested', stepId: 'q1', question: 'Which one?' }),
    ev({ type: 'input.resolved', stepId: 'q1', outcome: 'answered', by: 'u' }),
    ev({ type: 'share.created', share }),
    ev({ type: 'share.revoked', shareId: 'sh1', by: 'u' }),
    ev({ type: 'step.corrected', revision: 3, step: { ...stepOf('t2', 'c1', 1, 'thought', 'completed', 'Better.'), correctionOf: 't1' } }),
    ev({ type: 'steps.invalidated', revision: 3, stepIds: ['k1', 'm1', 'd1', 'a1'] }),
    ev({ type: 'session.deleted' }),
  ];
}

const copy = (state: SessionState) => structuredClone({ ...state, steps: [...state.steps.entries()], subagents: [...state.subagents.entries()], remembered: [...state.remembered.entries()] });

/** Every chain of a state copy by scope (the root's under `''`), and the sub-agents without their chains. */
const chainsOf = (state: ReturnType<typeof copy>): Map<string, string[]> => new Map([['', state.chain], ...state.subagents.map(([scope, subagent]): [string, string[]] => [scope, subagent.chain])]);
const subagentsWithoutChains = (state: ReturnType<typeof copy>) => state.subagents.map(([scope, { chain, ...rest }]) => [scope, rest]);

describe('the table of per-event traits', () => {
  it('has traits for every session event type, and for nothing else', () => {
    expect(Object.keys(SESSION_EVENT_TRAITS).sort()).toEqual([...SESSION_EVENT_TYPES].sort());
  });

  it('names the events that change a session summary: status, corrections, invalidations, copies and usage', () => {
    const changing = SESSION_EVENT_TYPES.filter((type) => SESSION_EVENT_TRAITS[type].changesSummary);
    expect(changing.sort()).toEqual(['session.status', 'step.corrected', 'steps.copied', 'steps.invalidated', 'usage.recorded']);
  });

  it('names the events that change sub-agents: their start, their status and usage', () => {
    const changing = SESSION_EVENT_TYPES.filter((type) => SESSION_EVENT_TRAITS[type].changesSubagents);
    expect(changing.sort()).toEqual(['subagent.started', 'subagent.status', 'usage.recorded']);
  });

  it('names the events that change the remembered approvals: a resolution (with remember) and a forget', () => {
    const changing = SESSION_EVENT_TYPES.filter((type) => SESSION_EVENT_TRAITS[type].changesRemembered);
    expect(changing.sort()).toEqual(['approval.resolved', 'approvals.forgotten']);
  });

  it('logs every event but session.deleted', () => {
    expect(SESSION_EVENT_TYPES.filter((type) => !SESSION_EVENT_TRAITS[type].logged)).toEqual(['session.deleted']);
  });

  it('agrees with the reducer: an event changes only the parts of the state its traits say', () => {
    const events = everyEvent();
    expect(new Set(events.map((event) => event.type)).size).toBe(SESSION_EVENT_TYPES.length);
    const state = createSessionState({ sessionId: SID, task: 't', agent: 'demo', status: 'running', revision: 0, createdAt: '2025-01-01T00:00:00.000Z' });
    for (const event of events) {
      const before = copy(state);
      const traits = traitsOf(event)!;
      for (const stepId of traits.needsSteps(event)) expect(state.steps.has(stepId), `${event.type} needs ${stepId}`).toBe(true);
      applyEvent(state, event);
      const after = copy(state);
      if (!traits.changesSummary) expect(after.session, `${event.type} changed the summary`).toEqual(before.session);
      if (!traits.changesQueue(event)) expect(after.queued, `${event.type} changed the queue`).toEqual(before.queued);
      if (!traits.changesShares) expect(after.shares, `${event.type} changed the links`).toEqual(before.shares);
      if (!traits.changesRemembered) expect(after.remembered, `${event.type} changed the remembered approvals`).toEqual(before.remembered);
      if (!traits.changesSubagents) expect(subagentsWithoutChains(after), `${event.type} changed a sub-agent`).toEqual(subagentsWithoutChains(before));
      const chainsBefore = chainsOf(before);
      const grown = traits.changesChainShape === 'grows' ? (after.steps.find(([stepId]) => stepId === traits.touchesSteps(event)[0])?.[1].scope ?? '') : undefined;
      for (const [scope, chain] of chainsOf(after)) {
        const old = chainsBefore.get(scope) ?? [];
        if (traits.changesChainShape === 'no' || (grown !== undefined && scope !== grown)) expect(chain, `${event.type} changed the chain of ${scope || 'the root'}`).toEqual(old);
        if (scope === grown) {
          expect(chain.slice(0, old.length)).toEqual(old);
          expect(chain.length, `${event.type} did not grow the chain of ${scope || 'the root'}`).toBeGreaterThan(old.length);
        }
      }
      const touched = new Set(traits.touchesSteps(event));
      const beforeSteps = new Map(before.steps);
      for (const [stepId, step] of after.steps) {
        if (touched.has(stepId)) continue;
        expect(step, `${event.type} changed step ${stepId}, which it does not touch`).toEqual(beforeSteps.get(stepId));
      }
      if (!traits.changesStepStatus) {
        for (const [stepId, step] of after.steps) expect(step.status, `${event.type} changed the status of ${stepId}`).toBe(beforeSteps.get(stepId)?.status);
      }
    }
  });

  it('reads nothing into a newer server’s event type', () => {
    const unknown = { type: 'step.glowed', sessionId: SID, seq: 1, at: '2025-01-01T00:00:00.000Z' } as unknown as SessionEvent;
    expect([traitsOf(unknown), changesSummary(unknown), touchedSteps(unknown), isKnownSessionEvent(unknown)]).toEqual([undefined, false, [], false]);
    expect(isKnownSessionEvent({ type: 'hello' })).toBe(false);
    expect(isKnownSessionEvent({ type: 'toString' })).toBe(false);
  });

  it('touches only the last step of a model call with its usage', () => {
    expect(touchedSteps(ev({ type: 'usage.recorded', model: 'm', usage: { inputTokens: 1, outputTokens: 1 }, stepIds: ['a', 'b'] }))).toEqual(['b']);
  });
});
