import { createContext } from 'svelte';
import type { ReplayTarget } from '$lib/replay/replay-target.js';
import type { SessionRights } from '$lib/sharing/session-rights.js';
import type { CorrectionDraft } from './correction-draft.svelte.js';
import type { SessionView } from './session-view.svelte.js';
import type { StepView } from './step-view.svelte.js';

/** What the chain components may ask of the page: the actions that reach the server. */
export interface ChainActions {
  /**
   * Send the draft as a `step.correct`; resolves when answered, with the id of the step that
   * replaces the corrected one (undefined when refused: the draft carries the refusal).
   */
  submitCorrection(view: StepView, draft: CorrectionDraft): Promise<string | undefined>;
  /**
   * Approve a tool call that waits for the user: it runs as proposed; with `remember: 'session'`
   * later calls of its tool in this session run without asking (PROTOCOL.md §25.3). Resolves when
   * answered (a refusal is shown as a toast).
   */
  approve(view: StepView, options?: { remember?: 'session' }): Promise<void>;
  /** Answer the question an `ask_user` call waits on (`input.provide`, PROTOCOL.md §25.2). Resolves when answered (a refusal is a toast; the text stays). */
  answerQuestion(view: StepView, text: string): Promise<void>;
  /** Reject it, with the reason written in `view.decision` if any: it does not run. Resolves when answered. */
  reject(view: StepView): Promise<void>;
  /** Stop one running or waiting sub-agent (`subagent.cancel`); its parent goes on. Resolves when answered (a refusal is shown as a toast). */
  cancelSubagent(scope: string): Promise<void>;
  /**
   * Start a new session from a copy of the chain up to this step (`session.fork`) and open it; with
   * `replay`, it runs at once on that agent and model (PROTOCOL.md §26.5). Resolves when done or refused (a toast).
   */
  fork(view: StepView, replay?: ReplayTarget): Promise<void>;
  /** Whether a correction, decision or message recorded as made by `by` (a connection id, or a user id) came from this user or browser. */
  isOwnConnection(by: string | undefined): boolean;
  /** What the page may do to the session (a share link's viewer only watches); reactive. */
  readonly rights: SessionRights;
}

export interface ChainContext {
  session: SessionView;
  actions: ChainActions;
}

/** `useChain()` reads the chain that a parent (the session page) gave its steps with `provideChain()`. */
export const [useChain, provideChain] = createContext<ChainContext>();
