import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CorrectionRecord, SessionEvent, SessionInfo, Step, StepKind } from '@interthought/protocol';
import type { AppendBatch, SessionRecord } from '../../src/core/persistence/event-store.js';

/** A fresh folder under the OS temp dir; `cleanup` removes it. */
export function makeTempDir(): { dir: string; file: (name?: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'interthought-store-'));
  return {
    dir,
    file: (name = 'interthought.db') => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function sessionInfo(sessionId: string, createdAt = '2025-01-01T00:00:00.000Z', task = `task of ${sessionId}`): SessionInfo {
  return { sessionId, task, agent: 'demo', status: 'running', revision: 0, createdAt };
}

export function sessionRecord(sessionId: string, createdAt?: string): SessionRecord {
  return { info: sessionInfo(sessionId, createdAt), options: { tokenDelayMs: 5 }, lastSeq: 0 };
}

const AT = '2025-01-01T00:00:01.000Z';

/**
 * Writes a session's events the way the core does: seqs 1, 2, 3 … with steps that fold cleanly
 * through the protocol reducer. `next*` methods return the event and advance the seq.
 */
export class EventScript {
  private seq: number;
  private chain: Step[] = [];
  private stepCount = 0;
  private revision = 0;

  constructor(
    readonly sessionId: string,
    afterSeq = 0,
  ) {
    this.seq = afterSeq;
  }

  get lastSeq(): number {
    return this.seq;
  }

  status(status: 'running' | 'paused' | 'completed'): SessionEvent {
    return { type: 'session.status', sessionId: this.sessionId, seq: ++this.seq, at: AT, status };
  }

  started(kind: StepKind = 'thought'): SessionEvent {
    const parent = this.chain[this.chain.length - 1];
    const step: Step = {
      stepId: `${this.sessionId}-s${++this.stepCount}`,
      parentId: parent?.stepId ?? null,
      index: this.chain.length,
      kind,
      status: 'streaming',
      content: '',
      revision: this.revision,
    };
    this.chain.push(step);
    return { type: 'step.started', sessionId: this.sessionId, seq: ++this.seq, at: AT, step: { ...step } };
  }

  delta(text: string): SessionEvent {
    return { type: 'step.delta', sessionId: this.sessionId, seq: ++this.seq, at: AT, stepId: this.head().stepId, text };
  }

  completed(content: string): SessionEvent {
    return { type: 'step.completed', sessionId: this.sessionId, seq: ++this.seq, at: AT, stepId: this.head().stepId, content };
  }

  /** A correction of the chain step at `index`: the corrected step, then the invalidation. */
  correct(index: number, content: string): [SessionEvent, SessionEvent] {
    const replaced = this.chain[index];
    if (!replaced) throw new Error(`no step at index ${index}`);
    this.revision += 1;
    const step: Step = {
      stepId: `${this.sessionId}-s${++this.stepCount}`,
      parentId: replaced.parentId,
      index,
      kind: replaced.kind,
      status: 'corrected',
      content,
      revision: this.revision,
      correctionOf: replaced.stepId,
      correction: { previousContent: replaced.content, at: AT },
    };
    const invalidated = this.chain.slice(index).map((s) => s.stepId);
    this.chain = [...this.chain.slice(0, index), step];
    const corrected: SessionEvent = {
      type: 'step.corrected',
      sessionId: this.sessionId,
      seq: ++this.seq,
      at: AT,
      step: { ...step },
      revision: this.revision,
    };
    const invalidation: SessionEvent = {
      type: 'steps.invalidated',
      sessionId: this.sessionId,
      seq: ++this.seq,
      at: AT,
      stepIds: invalidated,
      byStepId: step.stepId,
      revision: this.revision,
    };
    return [corrected, invalidation];
  }

  /** One whole streamed step: started, `words` deltas, completed. */
  step(words: string[], kind: StepKind = 'thought'): SessionEvent[] {
    const events = [this.started(kind)];
    for (const word of words) events.push(this.delta(word));
    const head = this.head();
    head.content = words.join('');
    events.push(this.completed(head.content));
    return events;
  }

  private head(): Step {
    const head = this.chain[this.chain.length - 1];
    if (!head) throw new Error('no step started');
    return head;
  }
}

/** A realistic log of about `length` events: status, steps of deltas, a correction. */
export function sessionLog(sessionId: string, length: number): SessionEvent[] {
  const script = new EventScript(sessionId);
  const events: SessionEvent[] = [script.status('running')];
  let round = 0;
  while (events.length < length) {
    round += 1;
    events.push(...script.step([`r${round} `, 'thinks ', 'hard']));
    if (round % 3 === 0) events.push(...script.correct(0, `corrected in round ${round}`));
  }
  return events.slice(0, length);
}

/** A batch the way the outbox writes it: each event serialised once, summaries (if any) alongside. */
export function batchOf(events: readonly SessionEvent[], summaries?: readonly SessionInfo[]): AppendBatch {
  const frames = events.map((event) => JSON.stringify(event));
  return summaries === undefined ? { events, frames } : { events, frames, summaries };
}

/** A correction record as the core indexes it, with what the test varies. */
export function correctionRecord(sessionId: string, step: number, at: string, extra: Partial<CorrectionRecord> = {}): CorrectionRecord {
  return {
    sessionId,
    stepId: `${sessionId}-s${step}`,
    correctedStepId: `${sessionId}-c${step}`,
    index: step,
    kind: 'thought',
    correction: 'edited',
    before: 'before',
    after: `after ${step}`,
    by: 'ada',
    at,
    task: `task of ${sessionId}`,
    agent: 'demo',
    ...extra,
  };
}
