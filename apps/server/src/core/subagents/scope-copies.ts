import { DELEGATE_TOOL, chainOfScope, type SessionEvent, type SessionState, type Step, type SubagentInfo } from '@interthought/protocol';
import { copiedSteps, pathTo } from '../commands/conversation.js';
import { isFinished } from './subagent-outcomes.js';

/** An event a fork starts with, before its session fields and seq are stamped. */
export type ForkEvent = DistributiveOmit<Extract<SessionEvent, { type: 'steps.copied' | 'subagent.started' | 'subagent.status' }>, 'sessionId' | 'seq' | 'at'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What a fork at a step copies (PROTOCOL.md §20.4, §24.7): its events, and whether it waits `idle` or is `interrupted`. */
export interface ForkCopy {
  events: ForkEvent[];
  /** `interrupted` for a fork at a scoped step: `session.resume` runs it on from there. */
  status: 'idle' | 'interrupted';
}

/**
 * The steps of `scope` a fork copies when it is on the way to the named step: the path to its
 * delegate call that leads there, and the rest of that call's batch (its delegate calls, not their
 * observations), so every sub-agent of the batch is copied and the fork resumes at the batch.
 */
function pathThroughBatch(state: SessionState, sessionId: string, call: Step): Step[] {
  const path = pathTo(state, sessionId, call.stepId);
  const chain = chainOfScope(state, call.scope) ?? [];
  const at = chain.indexOf(call.stepId);
  if (at === -1) return path;
  for (const stepId of chain.slice(at + 1)) {
    const step = state.steps.get(stepId);
    if (step === undefined || step.kind !== 'tool_call' || step.tool !== DELEGATE_TOOL) break;
    path.push(step);
  }
  return path;
}

/**
 * The events of a fork at `stepId`: the path to it copied with new ids, and with every delegate
 * call copied, its sub-agent: whole when the fork passes it, up to the named step (through the
 * batches above it) when the named step is inside it.
 */
export function forkCopy(source: SessionState, stepId: string, newId: () => string): ForkCopy {
  const sessionId = source.session.sessionId;
  const named = pathTo(source, sessionId, stepId).at(-1)!;
  // The copied prefix of each scope on the way to the named step; every other scope is copied whole.
  const prefixes = new Map<string | undefined, Step[]>([[named.scope, pathTo(source, sessionId, stepId)]]);
  for (let scope = named.scope; scope !== undefined; ) {
    const call = source.steps.get(scope);
    const info = source.subagents.get(scope);
    if (call === undefined || info === undefined) break;
    prefixes.set(info.parentScope, pathThroughBatch(source, sessionId, call));
    scope = info.parentScope;
  }
  const ids = new Map<string, string>();
  const copyId = (original: Step): string => {
    const id = newId();
    ids.set(original.stepId, id);
    return id;
  };
  const events: ForkEvent[] = [];
  const copyScope = (originals: readonly Step[], scope: string | undefined, copyScopeId: string | undefined): void => {
    if (originals.length === 0) return;
    const copies = copiedSteps(source, originals, copyId, copyScopeId);
    events.push({ type: 'steps.copied', steps: copies, from: { sessionId, stepId: originals.at(-1)!.stepId } });
    for (const original of originals) {
      const inner = original.kind === 'tool_call' && original.tool === DELEGATE_TOOL ? source.subagents.get(original.stepId) : undefined;
      if (inner === undefined || inner.parentScope !== scope) continue;
      copySubagent(inner, copyScopeId);
    }
  };
  const copySubagent = (info: SubagentInfo, parentCopy: string | undefined): void => {
    const scope = ids.get(info.scope)!;
    const onTheWay = prefixes.get(info.scope);
    events.push({
      type: 'subagent.started',
      scope,
      ...(parentCopy === undefined ? {} : { parentScope: parentCopy }),
      depth: info.depth,
      name: info.name,
      agent: info.agent,
      task: info.task,
    });
    const steps = onTheWay ?? info.chain.flatMap((id) => source.steps.get(id) ?? []);
    copyScope(steps, info.scope, scope);
    // A finished sub-agent keeps its end; one on the way to the named step, or cut off, runs on when the fork is resumed.
    if (onTheWay === undefined && isFinished(info.status)) {
      events.push({ type: 'subagent.status', scope, status: info.status, ...(info.error === undefined ? {} : { error: info.error }) });
    } else {
      events.push({ type: 'subagent.status', scope, status: 'interrupted' });
    }
  };
  copyScope(prefixes.get(undefined) ?? [], undefined, undefined);
  return { events, status: named.scope === undefined ? 'idle' : 'interrupted' };
}
