import { createContext } from 'svelte';
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

/** `useChain()` reads the chain that a parent (the session page) gave its steps with `provideChain()`. */
export const [useChain, provideChain] = createContext<ChainContext>();
