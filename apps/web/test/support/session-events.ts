import type { SessionEvent, SessionInfo, SessionSnapshotData, ShareRecord, Step, StepKind, SubagentStatus } from '@interthought/protocol';

/**
 * Builds a session's event log the way the server emits it: contiguous seqs, steps started on
 * the head of the chain, corrections that replace a step and invalidate the rest of the chain.
 */
export class EventLog {
  readonly events: SessionEvent[] = [];
  readonly chain: string[] = [];
  /** The chain of each sub-agent's scope (PROTOCOL.md §24.2). */
  readonly scopeChains = new Map<string, string[]>();
  #seq = 0;
  #revision = 0;
  #nextStep = 1;
  #clock = Date.parse('2025-01-01T10:00:00.000Z');
  readonly steps = new Map<string, Step>();

  constructor(readonly sessionId = 's1') {}

  get info(): SessionInfo {
    return { sessionId: this.sessionId, task: 'What is 15% of 240?', agent: 'demo', status: 'running', revision: this.#revision, createdAt: '2025-01-01T10:00:00.000Z' };
  }

  #base() {
    this.#clock += 1000;
    return { sessionId: this.sessionId, seq: ++this.#seq, at: new Date(this.#clock).toISOString() };
  }

  #push<E extends SessionEvent>(event: E): E {
    this.events.push(event);
    return event;
  }

  /** The chain a step of `scope` goes on: the root's, or that sub-agent's. */
  chainOf(scope: string | undefined): string[] {
    if (scope === undefined) return this.chain;
    const chain = this.scopeChains.get(scope);
    if (!chain) throw new Error(`No sub-agent ${scope} was started in this log.`);
    return chain;
  }

  start(kind: StepKind, extra: { tool?: string; scope?: string } = {}): string {
    const stepId = `st${this.#nextStep++}`;
    const chain = this.chainOf(extra.scope);
    const parentId = chain[chain.length - 1] ?? null;
    const step: Step = { stepId, parentId, index: chain.length, kind, status: 'streaming', content: '', revision: this.#revision, ...extra };
    this.steps.set(stepId, { ...step });
    chain.push(stepId);
    this.#push({ type: 'step.started', ...this.#base(), step });
    return stepId;
  }

  delta(stepId: string, text: string): void {
    const step = this.steps.get(stepId)!;
    step.content += text;
    this.#push({ type: 'step.delta', ...this.#base(), stepId, text });
  }

  complete(stepId: string, extra: { result?: unknown } = {}): void {
    const step = this.steps.get(stepId)!;
    step.status = 'completed';
    this.#push({ type: 'step.completed', ...this.#base(), stepId, content: step.content, ...extra });
  }

  /** A whole step: started, streamed in word-sized deltas, completed. */
  step(kind: StepKind, text: string, extra: { tool?: string; scope?: string } = {}): string {
    const stepId = this.start(kind, extra);
    for (const word of text.match(/\S+\s*/g) ?? [text]) this.delta(stepId, word);
    this.complete(stepId);
    return stepId;
  }

  /**
   * Correct a step on its scope's chain: a new step replaces it, it and every later step of that
   * chain are invalidated (with `alsoInvalidated`: a parent's steps after a batch's join, §24.4).
   */
  correct(stepId: string, content: string, note?: string, by = 'c-1', extra: { approval?: Step['approval']; byName?: string; alsoInvalidated?: string[] } = {}): string {
    const old = this.steps.get(stepId)!;
    const chain = this.chainOf(old.scope);
    const invalidated = [...chain.slice(old.index), ...(extra.alsoInvalidated ?? [])];
    this.#revision += 1;
    const newId = `st${this.#nextStep++}`;
    const base = this.#base();
    const step: Step = {
      stepId: newId,
      parentId: old.parentId,
      index: old.index,
      kind: old.kind,
      status: 'corrected',
      content,
      revision: this.#revision,
      correctionOf: stepId,
      correction: { previousContent: old.content, at: base.at, by, ...(note !== undefined ? { note } : {}), ...(extra.byName !== undefined ? { byName: extra.byName } : {}) },
      ...(old.tool !== undefined ? { tool: old.tool } : {}),
      ...(old.scope !== undefined ? { scope: old.scope } : {}),
      ...(extra.approval !== undefined ? { approval: extra.approval } : {}),
    };
    this.steps.set(newId, { ...step });
    chain.length = old.index;
    chain.push(newId);
    this.#push({ type: 'step.corrected', ...base, step, revision: this.#revision });
    for (const id of invalidated) {
      const gone = this.steps.get(id)!;
      gone.status = 'invalidated';
      // An invalidated step leaves the chain that held it (the reducer cuts that chain there).
      const holder = this.chainOf(gone.scope);
      const at = holder.indexOf(id);
      if (at !== -1) holder.length = at;
    }
    this.#push({ type: 'steps.invalidated', ...this.#base(), stepIds: invalidated, byStepId: newId, revision: this.#revision });
    return newId;
  }

  /** A delegate call's sub-agent begins (`subagent.started`, PROTOCOL.md §24.3): its scope is the call's id. */
  subagentStarted(scope: string, extra: { name?: string; agent?: string; task?: string; parentScope?: string } = {}): void {
    this.scopeChains.set(scope, []);
    const depth = extra.parentScope === undefined ? 1 : 2;
    this.#push({
      type: 'subagent.started',
      ...this.#base(),
      scope,
      depth,
      name: extra.name ?? scope,
      agent: extra.agent ?? 'demo',
      task: extra.task ?? 'a part of the task',
      ...(extra.parentScope !== undefined ? { parentScope: extra.parentScope } : {}),
    });
  }

  /** A sub-agent's status changed (`subagent.status`). */
  subagentStatus(scope: string, status: SubagentStatus, error?: string): void {
    this.#push({ type: 'subagent.status', ...this.#base(), scope, status, ...(error !== undefined ? { error } : {}) });
  }

  /** A delegate call (its content the §24.1 input), completed, and its sub-agent started. */
  delegate(name: string, task: string, scope?: string): string {
    const callId = this.step('tool_call', JSON.stringify({ task, name }), { tool: 'delegate', ...(scope !== undefined ? { scope } : {}) });
    this.subagentStarted(callId, { name, task, ...(scope !== undefined ? { parentScope: scope } : {}) });
    return callId;
  }

  status(status: SessionInfo['status'], detail?: string, extra: { error?: string; failure?: 'budget' } = {}): void {
    this.#push({ type: 'session.status', ...this.#base(), status, ...(detail !== undefined ? { detail } : {}), ...extra });
  }

  /** A model call's usage, after the steps it produced (PROTOCOL.md §22.1). */
  usage(stepIds: string[], usage: Extract<SessionEvent, { type: 'usage.recorded' }>['usage'], extra: { model?: string; timeToFirstTokenMs?: number; durationMs?: number } = {}): void {
    this.#push({ type: 'usage.recorded', ...this.#base(), model: extra.model ?? 'gpt-4o-mini', usage, stepIds, ...extra });
  }

  /** The policy makes a completed tool call wait for the user: `approval.requested`, then the status `waiting`. */
  askApproval(stepId: string): void {
    const step = this.steps.get(stepId)!;
    step.approval = { state: 'pending' };
    this.#push({ type: 'approval.requested', ...this.#base(), stepId, tool: step.tool ?? '', input: JSON.parse(step.content) as unknown });
    this.status('waiting', `waiting for approval of ${step.tool ?? 'a tool'}`);
  }

  /** The policy makes a completed tool call of a sub-agent wait: only that sub-agent stops (`subagent.status` `waiting`, §24.5). */
  askApprovalIn(stepId: string, scope: string): void {
    const step = this.steps.get(stepId)!;
    step.approval = { state: 'pending' };
    this.#push({ type: 'approval.requested', ...this.#base(), stepId, tool: step.tool ?? '', input: JSON.parse(step.content) as unknown });
    this.subagentStatus(scope, 'waiting');
  }

  /** The decision on a waiting tool call (`by` a connection id, or "server" for a timeout). Returns when it was made. */
  decide(stepId: string, decision: 'approved' | 'rejected' | 'edited', by = 'c-1', reason?: string, byName?: string): string {
    const base = this.#base();
    const named = byName !== undefined ? { byName } : {};
    this.steps.get(stepId)!.approval = { state: decision, by, at: base.at, ...(reason !== undefined ? { reason } : {}), ...named };
    this.#push({ type: 'approval.resolved', ...base, stepId, decision, by, ...(reason !== undefined ? { reason } : {}), ...named });
    return base.at;
  }

  /** An `ask_user` call's question waits for the user (`input.requested`, then `waiting`, PROTOCOL.md §25.1). */
  askQuestion(stepId: string): void {
    const input = JSON.parse(this.steps.get(stepId)!.content) as { question: string; choices?: string[] };
    const base = this.#base();
    this.steps.get(stepId)!.question = { state: 'pending', requestedAt: base.at };
    this.#push({ type: 'input.requested', ...base, stepId, question: input.question, ...(input.choices ? { choices: input.choices } : {}) });
    this.status('waiting', `Waiting for your answer: ${input.question}`);
  }

  /** The answer, as the server writes it in one turn: `input.resolved`, `running`, the observation (§25.2). */
  answerQuestion(stepId: string, text: string, by = 'c-1', byName?: string): string {
    const base = this.#base();
    const named = byName !== undefined ? { byName } : {};
    this.#push({ type: 'input.resolved', ...base, stepId, outcome: 'answered', by, ...named });
    this.status('running');
    const answer = this.start('observation', { tool: 'ask_user' });
    this.delta(answer, text);
    this.complete(answer, { result: { answer: text, by, ...named } });
    return answer;
  }

  /** A question nobody answered in time (§25.2). */
  timeOutQuestion(stepId: string): string {
    this.#push({ type: 'input.resolved', ...this.#base(), stepId, outcome: 'timed_out', by: 'server' });
    this.status('running');
    const answer = this.start('observation', { tool: 'ask_user' });
    this.delta(answer, 'The user did not answer in time.');
    this.complete(answer, { result: { unanswered: true, reason: 'timed out' } });
    return answer;
  }

  /** A decision with `remember: "session"`: later calls of the tool run without asking (§25.3). */
  decideAlways(stepId: string, by = 'c-1'): void {
    const base = this.#base();
    this.steps.get(stepId)!.approval = { state: 'approved', by, at: base.at };
    this.#push({ type: 'approval.resolved', ...base, stepId, decision: 'approved', by, remember: 'session' });
  }

  /** A whole tool call that ran under a standing decision: its `step.completed` carries the approval (§25.3, §25.4). */
  standingCall(tool: string, content: string, approval: NonNullable<Step['approval']>): string {
    const stepId = this.start('tool_call', { tool });
    this.delta(stepId, content);
    const step = this.steps.get(stepId)!;
    step.status = 'completed';
    step.approval = approval;
    this.#push({ type: 'step.completed', ...this.#base(), stepId, content: step.content, approval });
    return stepId;
  }

  /** Remembered approvals taken back (`approvals.forgotten`, §25.3). */
  forget(tools: string[], by = 'c-1'): void {
    this.#push({ type: 'approvals.forgotten', ...this.#base(), tools, by });
  }

  /** A breakpoint stopped the run at a step, and the session pauses naming the stop (§25.5). */
  breakpointHit(stepId: string, breakpoint: { kind?: string; tool?: string } = {}, index?: number): void {
    const base = this.#base();
    this.steps.get(stepId)!.breakpoint = { at: base.at, ...breakpoint, ...(index !== undefined ? { index } : {}) };
    this.#push({ type: 'breakpoint.hit', ...base, stepId, breakpoint, ...(index !== undefined ? { index } : {}) });
    this.status('paused', 'Stopped at a breakpoint');
  }

  /** The observation that records a refused call, as the server appends it after a rejection. */
  refusal(tool: string, by = 'c-1', reason?: string): string {
    const stepId = this.start('observation', { tool });
    const content = `The user refused this ${tool} call, so it was not run.${reason === undefined ? '' : ` Reason: ${reason}`}`;
    this.steps.get(stepId)!.content = content;
    this.complete(stepId, { result: { refused: true, by, ...(reason !== undefined ? { reason } : {}) } });
    return stepId;
  }

  /** A message sent while the agent runs waits (`message.queued`); returns the step id it will have. */
  queueMessage(text: string, mode: 'steer' | 'queue' = 'steer', author: { by?: string; byName?: string } = {}): string {
    const stepId = `st${this.#nextStep++}`;
    this.#push({ type: 'message.queued', ...this.#base(), stepId, text, mode, ...author });
    return stepId;
  }

  /** The user's message reaches the chain as a `user_message` step (with the id its queueing or acceptance named). */
  userMessage(text: string, stepId = `st${this.#nextStep++}`, author: { by?: string; byName?: string } = {}): string {
    const parentId = this.chain[this.chain.length - 1] ?? null;
    const step: Step = { stepId, parentId, index: this.chain.length, kind: 'user_message', status: 'streaming', content: '', revision: this.#revision, ...author };
    this.steps.set(stepId, { ...step });
    this.chain.push(stepId);
    this.#push({ type: 'step.started', ...this.#base(), step });
    this.steps.get(stepId)!.content = text;
    this.complete(stepId);
    return stepId;
  }

  /** A share link was made (`share.created`); returns the share as the log records it. */
  share(role: ShareRecord['role'], extra: { by?: string; byName?: string; expiresAt?: string } = {}): ShareRecord {
    const base = this.#base();
    const share: ShareRecord = { shareId: `sh${this.#seq}`, role, createdAt: base.at, by: extra.by ?? 'u-ada', ...extra };
    this.#push({ type: 'share.created', ...base, share });
    return share;
  }

  /** A share link was revoked (`share.revoked`). */
  unshare(shareId: string, by = 'u-ada'): void {
    this.#push({ type: 'share.revoked', ...this.#base(), shareId, by });
  }

  /** The session was deleted: its last event. */
  deleted(): void {
    this.#push({ type: 'session.deleted', ...this.#base() });
  }

  /** The events from `afterSeq` on. */
  since(afterSeq: number): SessionEvent[] {
    return this.events.filter((event) => event.seq > afterSeq);
  }

  /** An empty snapshot at seq 0, as a subscriber of a new session gets it. */
  emptySnapshot(): SessionSnapshotData {
    return { session: { ...this.info, revision: 0 }, steps: [], chain: [], seq: 0 };
  }
}

/** A scheduler driven by hand: `run()` performs the pending frame, if any. */
export class ManualFrames {
  pending: (() => void) | null = null;
  scheduled = 0;

  readonly schedule = (callback: () => void): (() => void) => {
    this.scheduled += 1;
    this.pending = callback;
    return () => {
      if (this.pending === callback) this.pending = null;
    };
  };

  run(): void {
    const callback = this.pending;
    this.pending = null;
    callback?.();
  }
}
