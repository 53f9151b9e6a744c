import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { DeltaPacer } from '../../apps/server/src/agents/firehose/delta-pacer.js';
import { MAX_DELTAS_PER_TICK } from '../../apps/server/src/agents/firehose/firehose-agent.js';
import { parseFirehoseTask, type FirehoseParams } from '../../apps/server/src/agents/firehose/firehose-params.js';
import { planFirehoseRun } from '../../apps/server/src/agents/firehose/firehose-plan.js';
import { DeltaTextFormat, nowMicros } from '../../apps/server/src/agents/firehose/firehose-text.js';

/** A 21-character id, the length of the nanoid ids the real server uses, so frames have the same size. */
export function rawId(): string {
  return randomBytes(16).toString('base64url').slice(0, 21);
}

/** Something frames can be sent to (a WebSocket). */
export interface RawPeer {
  send(frame: string): void;
}

interface RawStep {
  stepId: string;
  parentId: string | null;
  index: number;
  kind: 'thought' | 'final_answer';
  status: 'streaming' | 'completed' | 'corrected' | 'invalidated';
  content: string;
  revision: number;
  correctionOf?: string;
  correction?: { previousContent: string; at: string; by?: string };
}

/**
 * A firehose session with nothing but what sending the same frames needs: the chain, the
 * serialised frames (for replay) and the subscribers. No schemas, no store, no reducer.
 */
export class RawSession {
  readonly id = rawId();
  readonly createdAt = new Date().toISOString();
  readonly subscribers = new Set<RawPeer>();
  /** Every frame sent, in seq order: frames[seq - 1]. */
  readonly frames: string[] = [];
  readonly chain: RawStep[] = [];
  readonly steps: RawStep[] = [];
  status: 'running' | 'completed' | 'cancelled' | 'failed' = 'running';
  revision = 0;
  readonly #params: FirehoseParams;
  #generation = 0;

  constructor(readonly task: string) {
    this.#params = parseFirehoseTask(task);
  }

  get seq(): number {
    return this.frames.length;
  }

  info() {
    return { sessionId: this.id, task: this.task, agent: 'firehose', status: this.status, revision: this.revision, createdAt: this.createdAt };
  }

  /** Serialise once, keep it for replay, send the same string to every subscriber. */
  emit(fields: Record<string, unknown>, requester?: { peer: RawPeer; requestId: string }): void {
    const event = { type: fields.type, sessionId: this.id, seq: this.frames.length + 1, at: new Date().toISOString(), ...fields };
    const frame = JSON.stringify(event);
    this.frames.push(frame);
    for (const peer of this.subscribers) {
      peer.send(peer === requester?.peer ? JSON.stringify({ ...event, requestId: requester.requestId }) : frame);
    }
    if (requester && !this.subscribers.has(requester.peer)) requester.peer.send(JSON.stringify({ ...event, requestId: requester.requestId }));
  }

  setStatus(status: RawSession['status'], requester?: { peer: RawPeer; requestId: string }): void {
    this.status = status;
    this.emit({ type: 'session.status', status }, requester);
  }

  /** Start (or restart after a correction) the stream on a later turn, like the real server. */
  startRun(): void {
    const generation = ++this.#generation;
    setImmediate(() => void this.#run(generation).catch(() => undefined));
  }

  /** Stop the running stream (a correction or a cancel). */
  stopRun(): void {
    this.#generation++;
  }

  /**
   * Replace a chain step. `accept` gets the answer's fields before the events go out (the real
   * server answers first too); an error code is returned when refused.
   */
  correct(stepId: string, content: string, by: string, accept: (answer: { newStepId: string; revision: number }) => void): { code: string } | undefined {
    if (this.status === 'cancelled') return { code: 'SESSION_CANCELLED' };
    const target = this.chain.find((step) => step.stepId === stepId);
    if (!target) return { code: this.steps.some((step) => step.stepId === stepId) ? 'STEP_INVALIDATED' : 'STEP_NOT_FOUND' };
    this.stopRun();
    this.revision++;
    const at = new Date().toISOString();
    const invalidated = this.chain.splice(target.index);
    for (const step of invalidated) step.status = 'invalidated';
    const step: RawStep = {
      ...target,
      stepId: rawId(),
      status: 'corrected',
      content,
      revision: this.revision,
      correctionOf: target.stepId,
      correction: { previousContent: target.content, at, by },
    };
    this.steps.push(step);
    this.chain.push(step);
    accept({ newStepId: step.stepId, revision: this.revision });
    this.emit({ type: 'step.corrected', step, revision: this.revision });
    this.emit({ type: 'steps.invalidated', stepIds: invalidated.map((s) => s.stepId), byStepId: step.stepId, revision: this.revision });
    if (this.status !== 'running') this.setStatus('running');
    this.startRun();
    return undefined;
  }

  #startStep(kind: RawStep['kind']): RawStep {
    const head = this.chain.at(-1);
    const step: RawStep = { stepId: rawId(), parentId: head?.stepId ?? null, index: this.chain.length, kind, status: 'streaming', content: '', revision: this.revision };
    this.steps.push(step);
    this.chain.push(step);
    this.emit({ type: 'step.started', step: { ...step } });
    return step;
  }

  #delta(step: RawStep, text: string): void {
    step.content += text;
    this.emit({ type: 'step.delta', stepId: step.stepId, text });
  }

  #complete(step: RawStep): void {
    step.status = 'completed';
    this.emit({ type: 'step.completed', stepId: step.stepId, content: step.content });
  }

  /** The firehose plan, streamed with the same pacer and batch size as the real agent. */
  async #run(generation: number): Promise<void> {
    const live = () => generation === this.#generation;
    const params = this.#params;
    const plan = planFirehoseRun(params, this.chain);
    if (plan.finished || !live()) return;
    if (plan.fresh && params.delayMs > 0) await sleep(params.delayMs);
    const pacer = new DeltaPacer(params.rate);
    const format = new DeltaTextFormat(params.size);
    let index = plan.firstIndex;
    for (const size of plan.stepSizes) {
      if (!live()) return;
      const step = this.#startStep('thought');
      const end = index + size;
      while (index < end) {
        if (!live()) return;
        const granted = pacer.take(Math.min(MAX_DELTAS_PER_TICK, end - index));
        if (granted === 0) {
          await sleep(Math.max(1, Math.ceil(pacer.msUntilNext())));
          continue;
        }
        for (let i = 0; i < granted; i++, index++) this.#delta(step, format.format(index, nowMicros()));
        await nextTurn();
      }
      this.#complete(step);
    }
    if (!live()) return;
    const answer = this.#startStep('final_answer');
    this.#delta(answer, `Streamed ${params.count} deltas of ${params.size} characters.`);
    this.#complete(answer);
    this.setStatus('completed');
  }

  snapshot() {
    return { session: this.info(), steps: this.steps.map((step) => ({ ...step })), chain: this.chain.map((step) => step.stepId), seq: this.seq };
  }
}
