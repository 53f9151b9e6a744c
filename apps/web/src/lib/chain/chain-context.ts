import { getContext, setContext } from 'svelte';
import type { CorrectionDraft } from './correction-draft.svelte.js';
import type { SessionView } from './session-view.svelte.js';
import type { StepView } from './step-view.svelte.js';

/** What the chain components may ask of the page: the actions that reach the server. */
export interface ChainActions {
  /** Send the draft as a `step.correct`; resolves when answered (the draft carries any refusal). */
  submitCorrection(view: StepView, draft: CorrectionDraft): Promise<void>;
  /** Whether a correction recorded as made by `by` (a connection id) came from this browser. */
  isOwnCorrection(by: string | undefined): boolean;
}

export interface ChainContext {
  session: SessionView;
  actions: ChainActions;
}

/** The context key of the chain (exported so tests can mount a component with it). */
export const CHAIN_KEY = Symbol('interthought.chain');

export function provideChain(context: ChainContext): ChainContext {
  return setContext(CHAIN_KEY, context);
}

export function useChain(): ChainContext {
  const context = getContext<ChainContext | undefined>(CHAIN_KEY);
  if (!context) throw new Error('useChain() needs a chain provided by a parent (provideChain).');
  return context;
}
