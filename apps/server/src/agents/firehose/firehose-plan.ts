import type { Step } from '@interthought/protocol';
import type { FirehoseParams } from './firehose-params.js';

/** What one run of the firehose streams, given the chain it continues. */
export interface FirehoseRunPlan {
  /** The chain is empty: the session starts now (so the start delay applies). */
  fresh: boolean;
  /** The chain already ends in a final answer (a user corrected it): nothing is left to stream. */
  finished: boolean;
  /** The index of the run's first delta: indices continue the chain's steps, so every delta is unique. */
  firstIndex: number;
  /** The chain position of the run's first step (its kind is `kinds[firstStep % kinds.length]`). */
  firstStep: number;
  /** The number of deltas of each step still to stream, in order. */
  stepSizes: number[];
  /** How many of `stepSizes` (the first ones) belong to the unpaced lead. */
  unpacedSteps: number;
}

/**
 * Plan a run. Every step on the chain before a final answer (completed or corrected) counts as
 * one of the session's steps, so after a correction the agent streams only the steps that remain.
 * The session has `leadSteps` full steps first, then the steps of the paced `count` deltas.
 */
export function planFirehoseRun(params: FirehoseParams, chain: readonly Pick<Step, 'kind'>[]): FirehoseRunPlan {
  const last = chain.at(-1);
  const stepsDone = chain.filter((step) => step.kind !== 'final_answer').length;
  const pacedSteps = Math.ceil(params.count / params.perStep);
  const totalSteps = params.leadSteps + pacedSteps;
  const stepSizes: number[] = [];
  for (let step = stepsDone; step < totalSteps; step++) {
    const paced = step - params.leadSteps;
    stepSizes.push(paced < 0 ? params.perStep : Math.min(params.perStep, params.count - paced * params.perStep));
  }
  return {
    fresh: chain.length === 0,
    finished: last?.kind === 'final_answer',
    firstIndex: Math.min(stepsDone, totalSteps) * params.perStep,
    firstStep: stepsDone,
    stepSizes,
    unpacedSteps: Math.max(0, params.leadSteps - stepsDone),
  };
}
