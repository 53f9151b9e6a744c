import type { SessionEvent, Step, StepKind } from '../../src/index.js';
import { eventBuilder } from './event-builders.js';

/**
 * Hand-written events of a session with sub-agents (PROTOCOL.md §24), numbered in the order a test
 * makes them. Step builders take the scope last; every step starts streaming and empty.
 */
export function scopedEvents(sessionId: string) {
  const { ev, reset, rewind } = eventBuilder(sessionId);

  const stepIn = (stepId: string, parentId: string | null, index: number, kind: StepKind, scope?: string): Step => {
    const step: Step = { stepId, parentId, index, kind, status: 'streaming', content: '', revision: 0 };
    if (scope !== undefined) step.scope = scope;
    return step;
  };

  /** A step started and completed with `content`. */
  const done = (stepId: string, parentId: string | null, index: number, kind: StepKind, scope?: string, content = `${stepId} done`): SessionEvent[] => [
    ev({ type: 'step.started', step: stepIn(stepId, parentId, index, kind, scope) }),
    ev({ type: 'step.completed', stepId, content }),
  ];

  /** A delegate call, completed, and the `subagent.started` of its sub-agent. */
  const delegate = (stepId: string, parentId: string | null, index: number, options: { parentScope?: string; depth?: number; name?: string } = {}): SessionEvent[] => {
    const task = `task of ${stepId}`;
    const started: Record<string, unknown> = { type: 'subagent.started', scope: stepId, depth: options.depth ?? 1, name: options.name ?? stepId, agent: 'demo', task };
    if (options.parentScope !== undefined) started['parentScope'] = options.parentScope;
    return [
      ev({ type: 'step.started', step: { ...stepIn(stepId, parentId, index, 'tool_call', options.parentScope), tool: 'delegate' } }),
      ev({ type: 'step.completed', stepId, content: JSON.stringify({ task }), tool: 'delegate' }),
      ev(started as Omit<SessionEvent, 'sessionId' | 'seq' | 'at'>),
    ];
  };

  /** A correction of `replaced` by `step` at revision `revision`, and the steps it invalidates. */
  const correct = (step: Step, replaced: string, revision: number, invalidated: string[]): SessionEvent[] => [
    ev({
      type: 'step.corrected',
      revision,
      step: { ...step, status: 'corrected', content: `${step.stepId} corrected`, revision, correctionOf: replaced, correction: { previousContent: `${replaced} done`, at: 'now', by: 'c_1' } },
    }),
    ev({ type: 'steps.invalidated', revision, stepIds: invalidated, byStepId: step.stepId }),
  ];

  const status = (scope: string, value: string, error?: string): SessionEvent =>
    ev(error === undefined ? { type: 'subagent.status', scope, status: value } : { type: 'subagent.status', scope, status: value, error });

  const usage = (stepIds: string[], inputTokens: number, outputTokens: number, costUsd?: number): SessionEvent =>
    ev({ type: 'usage.recorded', model: 'm', usage: costUsd === undefined ? { inputTokens, outputTokens } : { inputTokens, outputTokens, costUsd }, stepIds });

  return { ev, reset, rewind, stepIn, done, delegate, correct, status, usage };
}
