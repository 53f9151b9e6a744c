import fc from 'fast-check';
import type { SessionEvent, SessionInfo, Step, StepKind } from '../../src/index.js';

/*
 * Sessions with a batch of parallel sub-agents (PROTOCOL.md §24), as a server could log them in
 * any interleaving. Each scope plays its own actions; what it writes is a list of *turns* (events
 * the server applies atomically, like a correction's step.corrected + steps.invalidated), each
 * knowing the turns that must come before it: its scope's previous turn, the subagent.started
 * that opens its scope, a nested batch's last turn before the parent goes on. `interleave` picks
 * any order those constraints allow and numbers seq and revisions in that order, as a server does.
 */

type EventBody = DistributiveOmit<SessionEvent, 'sessionId' | 'seq'>;

/** What one sub-agent does; `nest` delegates to a sub-agent of its own (depth 2) and waits for it. */
export type ScopeAction =
  | { kind: 'start'; stepKind: StepKind }
  | { kind: 'delta'; text: string }
  | { kind: 'complete' }
  | { kind: 'usage'; inputTokens: number; outputTokens: number; quarters: number | undefined }
  | { kind: 'correct'; position: number; content: string }
  | { kind: 'approval' }
  | { kind: 'nest'; actions: ScopeAction[] };

interface Turn {
  events: EventBody[];
  after: number[];
}

/** A session as turns with their constraints. */
export interface ParallelSession {
  info: SessionInfo;
  turns: Turn[];
}

const STEP_KINDS: StepKind[] = ['thought', 'action', 'tool_call', 'observation'];

const leafAction: fc.Arbitrary<ScopeAction> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...STEP_KINDS).map((stepKind) => ({ kind: 'start' as const, stepKind })) },
  { weight: 4, arbitrary: fc.string({ maxLength: 6 }).map((text) => ({ kind: 'delta' as const, text })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'complete' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('usage' as const),
      inputTokens: fc.nat({ max: 5_000 }),
      outputTokens: fc.nat({ max: 500 }),
      // Costs in quarters of a dollar add up exactly in any order; arbitrary floats would not.
      quarters: fc.option(fc.nat({ max: 40 }), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('correct' as const), position: fc.nat(), content: fc.string({ minLength: 1, maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'approval' as const }) },
);

/** What one sub-agent of the batch does: leaf actions, and sometimes a nested sub-agent with its own. */
export const scopeActions: fc.Arbitrary<ScopeAction[]> = fc.array(
  fc.oneof({ weight: 9, arbitrary: leafAction }, { weight: 1, arbitrary: fc.array(leafAction, { maxLength: 8 }).map((actions) => ({ kind: 'nest' as const, actions })) }),
  { maxLength: 14 },
);

const AT = '2025-01-01T00:00:00.000Z';

class SessionTurns {
  readonly turns: Turn[] = [];
  readonly steps = new Map<string, Step>();
  private nextId = 1;

  newId(prefix: string): string {
    return `${prefix}${this.nextId++}`;
  }

  add(events: EventBody[], after: number[]): number {
    this.turns.push({ events, after });
    return this.turns.length - 1;
  }
}

/** One scope's (or the root's) writer: its chain, and the turn its next one must follow. */
class ScopeWriter {
  chain: string[] = [];
  private last: number[];

  constructor(
    private readonly session: SessionTurns,
    readonly scope: string | undefined,
    readonly depth: number,
    after: number[],
  ) {
    this.last = after;
  }

  /** Add a turn after this scope's last one (and after `also`). */
  turn(events: EventBody[], also: number[] = []): number {
    const id = this.session.add(events, [...this.last, ...also]);
    this.last = [id];
    return id;
  }

  lastTurns(): number[] {
    return this.last;
  }

  play(action: ScopeAction): void {
    switch (action.kind) {
      case 'start':
        this.start(action.stepKind);
        return;
      case 'delta': {
        const head = this.streamingHead();
        if (head === undefined) return;
        head.content += action.text;
        this.turn([{ type: 'step.delta', stepId: head.stepId, text: action.text, at: AT }]);
        return;
      }
      case 'complete':
        this.complete();
        return;
      case 'usage': {
        const usage = action.quarters === undefined ? { inputTokens: action.inputTokens, outputTokens: action.outputTokens } : { inputTokens: action.inputTokens, outputTokens: action.outputTokens, costUsd: action.quarters / 4 };
        this.turn([{ type: 'usage.recorded', model: 'm', usage, stepIds: this.chain.slice(-2), at: AT }]);
        return;
      }
      case 'correct':
        this.correct(action.position, action.content);
        return;
      case 'approval':
        this.approval();
        return;
      case 'nest':
        if (this.scope !== undefined && this.depth === 1) this.nest(action.actions);
        return;
    }
  }

  /** A new step on the head, in one turn with the head's completion when it still streams (and after `also`). */
  start(kind: StepKind, tool?: string, also: number[] = []): Step {
    const events = this.completion();
    const step: Step = { stepId: this.session.newId(this.scope === undefined ? 'r' : `${this.scope}_`), parentId: this.chain[this.chain.length - 1] ?? null, index: this.chain.length, kind, status: 'streaming', content: '', revision: 0 };
    if (this.scope !== undefined) step.scope = this.scope;
    if (tool !== undefined) step.tool = tool;
    this.session.steps.set(step.stepId, { ...step });
    this.chain.push(step.stepId);
    this.turn([...events, { type: 'step.started', step, at: AT }], also);
    return this.session.steps.get(step.stepId)!;
  }

  complete(): void {
    const events = this.completion();
    if (events.length > 0) this.turn(events);
  }

  /** The sub-agent ends: its head completed, its status `completed`. */
  finish(): void {
    this.turn([...this.completion(), { type: 'subagent.status', scope: this.scope!, status: 'completed', at: AT }]);
  }

  /** A delegate call in this scope, its sub-agent opened; returns the writer of the new scope. */
  delegate(): ScopeWriter {
    const call = this.start('tool_call', 'delegate');
    this.turn([{ type: 'step.completed', stepId: call.stepId, content: '{"task":"part"}', tool: 'delegate', at: AT }]);
    call.status = 'completed';
    const parent = this.scope === undefined ? {} : { parentScope: this.scope };
    const opened = this.turn([{ type: 'subagent.started', scope: call.stepId, ...parent, depth: this.depth + 1, name: call.stepId, agent: 'demo', task: 'part', at: AT }]);
    return new ScopeWriter(this.session, call.stepId, this.depth + 1, [opened]);
  }

  /** The observation of a finished delegate call, after its sub-agent's last turn. */
  observe(call: string, after: number[]): void {
    const step = this.start('observation', 'delegate', after);
    this.turn([{ type: 'step.completed', stepId: step.stepId, content: `${call} answered`, tool: 'delegate', result: { subagent: call, status: 'completed' }, at: AT }]);
    step.status = 'completed';
    step.content = `${call} answered`;
  }

  private nest(actions: ScopeAction[]): void {
    const child = this.delegate();
    for (const action of actions) child.play(action);
    child.finish();
    this.observe(child.scope!, child.lastTurns());
  }

  private streamingHead(): Step | undefined {
    const head = this.session.steps.get(this.chain[this.chain.length - 1] ?? '');
    return head?.status === 'streaming' ? head : undefined;
  }

  /** The events completing the head, if it streams (none otherwise). */
  private completion(): EventBody[] {
    const head = this.streamingHead();
    if (head === undefined) return [];
    head.status = 'completed';
    return [{ type: 'step.completed', stepId: head.stepId, content: head.content, ...(head.tool === undefined ? {} : { tool: head.tool }), at: AT }];
  }

  private approval(): void {
    const call = this.start('tool_call', 'calculator');
    this.turn([...this.completion(), { type: 'approval.requested', stepId: call.stepId, tool: 'calculator', input: {}, at: AT }, { type: 'subagent.status', scope: this.scope!, status: 'waiting', at: AT }]);
    this.turn([{ type: 'approval.resolved', stepId: call.stepId, decision: 'approved', by: 'u', at: AT }, { type: 'subagent.status', scope: this.scope!, status: 'running', at: AT }]);
  }

  /** A correction inside this scope: the chain from `position` on is invalidated, with the steps of the sub-agents those started. */
  private correct(position: number, content: string): void {
    const events = this.completion();
    if (this.chain.length === 0) return;
    const index = position % this.chain.length;
    const replaced = this.session.steps.get(this.chain[index]!)!;
    const step: Step = {
      stepId: this.session.newId(this.scope === undefined ? 'r' : `${this.scope}_`),
      parentId: index === 0 ? null : this.chain[index - 1]!,
      index,
      kind: replaced.kind,
      status: 'corrected',
      content,
      revision: 0,
      correctionOf: replaced.stepId,
      correction: { previousContent: replaced.content, at: AT, by: 'u' },
    };
    if (this.scope !== undefined) step.scope = this.scope;
    if (replaced.tool !== undefined) step.tool = replaced.tool;
    const leaving = this.chain.slice(index);
    const invalidated = [...leaving, ...this.stepsOfScopes(new Set(leaving))];
    for (const stepId of invalidated) this.session.steps.get(stepId)!.status = 'invalidated';
    this.session.steps.set(step.stepId, { ...step });
    this.chain = [...this.chain.slice(0, index), step.stepId];
    // Revisions are numbered by `interleave`, in the order the server applies corrections.
    this.turn([...events, { type: 'step.corrected', step, revision: 0, at: AT }, { type: 'steps.invalidated', stepIds: invalidated, byStepId: step.stepId, revision: 0, at: AT }]);
  }

  /** The valid steps written in `scopes` (delegate calls' ids), and in the scopes those started. */
  private stepsOfScopes(scopes: Set<string>): string[] {
    const found: string[] = [];
    for (const step of this.session.steps.values()) {
      if (step.scope === undefined || step.status === 'invalidated' || !scopes.has(step.scope)) continue;
      found.push(step.stepId);
      scopes.add(step.stepId);
    }
    return found;
  }
}

/** A root that thinks, delegates a batch of `scopes.length` sub-agents running at once, joins their results and answers. */
export function buildParallelSession(scopes: ScopeAction[][], sessionId = 'sess_par'): ParallelSession {
  const info: SessionInfo = { sessionId, task: 'Two things at once', agent: 'demo', status: 'running', revision: 0, createdAt: AT };
  const session = new SessionTurns();
  const root = new ScopeWriter(session, undefined, 0, []);
  root.start('thought');
  root.play({ kind: 'delta', text: 'Split it.' });
  const writers = scopes.map(() => root.delegate());
  writers.forEach((writer, i) => {
    for (const action of scopes[i]!) writer.play(action);
    writer.finish();
  });
  const finished = writers.flatMap((writer) => writer.lastTurns());
  for (const writer of writers) root.observe(writer.scope!, finished);
  root.start('final_answer');
  root.play({ kind: 'delta', text: 'Both done.' });
  root.play({ kind: 'usage', inputTokens: 9, outputTokens: 3, quarters: 1 });
  root.complete();
  return { info, turns: session.turns };
}

/** Picks one of `ready` turns (an index below it). */
export type TurnChooser = (ready: number) => number;

/** The order the turns were written in: always the first one ready. */
export const writtenOrder: TurnChooser = () => 0;

/** A seeded random order (mulberry32): the same seed, the same interleaving. */
export function seededOrder(seed: number): TurnChooser {
  let a = seed >>> 0;
  return (ready) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * ready);
  };
}

/**
 * The session's events in one order its constraints allow: at each point, of the turns ready, the
 * one `choose` picks. `seq` and revisions are numbered in that order.
 */
export function interleave({ info, turns }: ParallelSession, choose: TurnChooser = writtenOrder): SessionEvent[] {
  const emitted = new Set<number>();
  const events: SessionEvent[] = [];
  let revision = 0;
  while (emitted.size < turns.length) {
    const ready = turns.flatMap((turn, id) => (!emitted.has(id) && turn.after.every((before) => emitted.has(before)) ? [id] : []));
    const id = ready[choose(ready.length) % ready.length]!;
    emitted.add(id);
    const turn = turns[id]!;
    if (turn.events.some((event) => event.type === 'step.corrected')) revision += 1;
    for (const body of turn.events) {
      const event = { ...body, sessionId: info.sessionId, seq: events.length + 1 } as SessionEvent;
      if (event.type === 'step.corrected') {
        event.revision = revision;
        event.step = { ...event.step, revision };
      }
      if (event.type === 'steps.invalidated') event.revision = revision;
      events.push(event);
    }
  }
  return events;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
