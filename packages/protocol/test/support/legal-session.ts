import fc from 'fast-check';
import type { SessionEvent, SessionInfo, SessionStatus, Step, StepKind } from '../../src/index.js';

/** An abstract thing that happens in a session; `buildSession` turns a list of them into legal events. */
export type SessionAction =
  | { kind: 'start'; stepKind: StepKind }
  | { kind: 'delta'; text: string }
  | { kind: 'complete' }
  | { kind: 'correct'; position: number; content: string; note: string | undefined }
  | { kind: 'status'; status: SessionStatus };

export interface LegalSession {
  info: SessionInfo;
  events: SessionEvent[];
}

const STEP_KINDS: StepKind[] = ['thought', 'action', 'tool_call', 'observation', 'final_answer', 'user_message'];
const STATUSES: SessionStatus[] = ['running', 'paused', 'waiting', 'idle', 'completed', 'failed', 'cancelled', 'interrupted'];

export const sessionAction: fc.Arbitrary<SessionAction> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...STEP_KINDS).map((stepKind) => ({ kind: 'start' as const, stepKind })) },
  { weight: 6, arbitrary: fc.string({ maxLength: 12 }).map((text) => ({ kind: 'delta' as const, text })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'complete' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('correct' as const),
      position: fc.nat(),
      content: fc.string({ minLength: 1, maxLength: 20 }),
      note: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom(...STATUSES).map((status) => ({ kind: 'status' as const, status })) },
);

const at = (seq: number): string => new Date(Date.UTC(2025, 0, 1) + seq * 1_000).toISOString();

/** Plays the actions the way a server would: steps start on the chain's head, corrections replace a chain step and invalidate the rest. */
class SessionScript {
  readonly events: SessionEvent[] = [];
  private readonly steps = new Map<string, Step>();
  private chain: string[] = [];
  private revision = 0;
  private nextStep = 1;

  constructor(readonly info: SessionInfo) {}

  play(action: SessionAction): void {
    switch (action.kind) {
      case 'start':
        return this.start(action.stepKind);
      case 'delta': {
        const head = this.streamingHead();
        if (!head) return;
        head.content += action.text;
        return this.push({ type: 'step.delta', stepId: head.stepId, text: action.text });
      }
      case 'complete':
        return this.complete();
      case 'correct':
        return this.correct(action.position, action.content, action.note);
      case 'status':
        return this.push(action.status === 'failed' ? { type: 'session.status', status: 'failed', error: 'tool crashed' } : { type: 'session.status', status: action.status });
    }
  }

  private push(event: DistributiveOmit<SessionEvent, 'sessionId' | 'seq' | 'at'>): void {
    const seq = this.events.length + 1;
    this.events.push({ ...event, sessionId: this.info.sessionId, seq, at: at(seq) } as SessionEvent);
  }

  private streamingHead(): Step | undefined {
    const head = this.steps.get(this.chain[this.chain.length - 1] ?? '');
    return head?.status === 'streaming' ? head : undefined;
  }

  private start(kind: StepKind): void {
    this.complete();
    const step: Step = {
      stepId: `st_${this.nextStep++}`,
      parentId: this.chain[this.chain.length - 1] ?? null,
      index: this.chain.length,
      kind,
      status: 'streaming',
      content: '',
      revision: this.revision,
      ...(kind === 'tool_call' || kind === 'observation' ? { tool: 'calculator' } : {}),
    };
    this.steps.set(step.stepId, { ...step });
    this.chain.push(step.stepId);
    this.push({ type: 'step.started', step });
  }

  private complete(): void {
    const head = this.streamingHead();
    if (!head) return;
    head.status = 'completed';
    const result = head.kind === 'observation' ? { result: { value: head.content.length, ok: true } } : {};
    this.push({ type: 'step.completed', stepId: head.stepId, content: head.content, ...(head.tool ? { tool: head.tool } : {}), ...result });
  }

  private correct(position: number, content: string, note: string | undefined): void {
    if (this.chain.length === 0) return;
    const index = position % this.chain.length;
    const replaced = this.steps.get(this.chain[index]!)!;
    this.revision += 1;
    const step: Step = {
      stepId: `st_${this.nextStep++}`,
      parentId: index === 0 ? null : this.chain[index - 1]!,
      index,
      kind: replaced.kind,
      status: 'corrected',
      content,
      revision: this.revision,
      correctionOf: replaced.stepId,
      correction: { previousContent: replaced.content, at: at(this.events.length + 1), by: 'conn_1', ...(note === undefined ? {} : { note }) },
    };
    const invalidated = this.chain.slice(index);
    for (const stepId of invalidated) this.steps.get(stepId)!.status = 'invalidated';
    this.steps.set(step.stepId, { ...step });
    this.chain = [...this.chain.slice(0, index), step.stepId];
    this.push({ type: 'step.corrected', step, revision: this.revision });
    this.push({ type: 'steps.invalidated', stepIds: invalidated, byStepId: step.stepId, revision: this.revision });
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The session info every generated session starts from. */
export function sessionInfo(sessionId = 'sess_1'): SessionInfo {
  return { sessionId, task: 'Plan a trip', agent: 'demo', status: 'running', revision: 0, createdAt: at(0) };
}

/** Turn actions into the events a correct server would log. */
export function buildSession(actions: readonly SessionAction[], sessionId = 'sess_1'): LegalSession {
  const script = new SessionScript(sessionInfo(sessionId));
  for (const action of actions) script.play(action);
  return { info: script.info, events: script.events };
}

/** Legal sessions of up to `maxActions` actions. */
export const legalSession = (maxActions = 60): fc.Arbitrary<LegalSession> =>
  fc.array(sessionAction, { maxLength: maxActions, size: 'max' }).map((actions) => buildSession(actions));

/** A legal session with a cut point in [0, events.length]. */
export const legalSessionWithCut = (maxActions = 60): fc.Arbitrary<{ session: LegalSession; cut: number }> =>
  legalSession(maxActions).chain((session) => fc.nat({ max: session.events.length }).map((cut) => ({ session, cut })));
