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
  /** The number of deltas of each `thought` step still to stream, in order. */
  stepSizes: number[];
}

/**
 * Plan a run. Every `thought` step on the chain (completed or corrected) counts as one of the
 * session's steps, so after a correction the agent streams only the steps that remain.
 */
export function planFirehoseRun(params: FirehoseParams, chain: readonly Pick<Step, 'kind'>[]): FirehoseRunPlan {
  const last = chain.at(-1);
  const stepsDone = chain.filter((step) => step.kind === 'thought').length;
  const totalSteps = Math.ceil(params.count / params.perStep);
  const stepSizes: number[] = [];
  for (let step = stepsDone; step < totalSteps; step++) {
    stepSizes.push(Math.min(params.perStep, params.count - step * params.perStep));
  }
  return {
    fresh: chain.length === 0,
    finished: last?.kind === 'final_answer',
    firstIndex: Math.min(stepsDone, totalSteps) * params.perStep,
    stepSizes,
  };
}
