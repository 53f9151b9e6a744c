import type { CallUsage, CorrectionInfo, LessonSource, Step, StepApproval, StepBreakpoint, StepKind, StepQuestion, StepStatus } from '@interthought/protocol';
import type { DiffGranularity } from '$lib/diff/index.js';
import { ApprovalDecision } from './approval-decision.svelte.js';
import { QuestionAnswer } from './question-answer.svelte.js';
import { CorrectionDraft } from './correction-draft.svelte.js';

/** How many of the latest frames' text runs are still fading in (about a third of a second of them). */
const FRESH_RUNS = 16;

/**
 * Above this pace a step's text is a blur, not words to follow: new text shows without fading in
 * and the caret holds still. Each fade and the breathing caret repaint every frame, which at
 * firehose pace (1,000 deltas/s) cost the page a third of its frames; agents that people read
 * (LLMs at 20–100 tokens/s, a few hundred characters a second) stay far below it.
 */
export const FAST_CHARS_PER_SECOND = 2_000;
/** The shortest span a pace is judged over, so a step's first frame alone never counts as fast. */
const PACE_WINDOW_MS = 100;

/**
 * What the UI shows of one step. Each step owns its `$state` fields, so appending a token to
 * one step re-renders that step's card and nothing else. It is only ever written by `sync()`,
 * from the protocol reducer's state: the reducer stays the single definition of a step.
 */
export class StepView {
  readonly stepId: string;
  readonly kind: StepKind;
  readonly index: number;
  readonly parentId: string | null;
  readonly correctionOf: string | undefined;
  /** The delegate call whose sub-agent wrote it; undefined for the session's own steps (PROTOCOL.md §24.2). */
  readonly scope: string | undefined;
  /** For the user's turn: who wrote it (a user id, else a connection id) and their name, when the server knows. */
  readonly by: string | undefined;
  readonly byName: string | undefined;
  /** For the lessons step a run began with: the corrections its guidance came from (PROTOCOL.md §26.4). */
  readonly lessons: readonly LessonSource[] | undefined;

  // The fields copied from the reducer's step are made in the constructor with the step's values:
  // a 10,000-step snapshot makes 10,000 views at once, and writing each field a second time
  // (through `sync`) cost about half of opening it.
  #content: string;
  #status: StepStatus;
  #tool: string | undefined;
  #result: unknown;
  #correction: CorrectionInfo | undefined;
  /** A tool call's approval: waiting, or the decision made on it (by whom, when, why). */
  #approval: StepApproval | undefined;
  /** An `ask_user` call's question: waiting, answered (by whom, when) or timed out (PROTOCOL.md §25.1). */
  #question: StepQuestion | undefined;
  /** The mark of a breakpoint that stopped the run at this step (PROTOCOL.md §25.5). */
  #breakpoint: StepBreakpoint | undefined;
  /** The model call this step ended: its tokens, cost and timing (PROTOCOL.md §22.1). */
  #usage: CallUsage | undefined;
  #startedAt: string | undefined;
  #completedAt: string | undefined;
  /**
   * Where each of the latest frames' appended text begins, oldest first: each of these runs fades
   * in on its own, so a new frame never restarts the fade of the words before it.
   */
  #freshStarts = $state.raw<readonly number[]>([]);
  /** The text streams faster than anyone reads (`FAST_CHARS_PER_SECOND`): no fade-in, a still caret. */
  #fast = $state(false);
  /** When this step's streamed text began arriving, and how much has come since. */
  #pace: { since: number; chars: number } | undefined;
  /**
   * A long text opened past its "show more". Here, not in the card: on a long chain the card is
   * unmounted when it scrolls far away and comes back as the user left it.
   */
  expanded = $state(false);
  /** The card folded to its header by the user (its chevron), kept here for the same reason. */
  collapsed = $state(false);
  /** The card showing what its correction changed (the trail's diff), kept here for the same reason. */
  diffShown = $state(false);
  /** The diff's level (words or characters) once the user picked one, kept here for the same reason. */
  diffGranularity = $state<DiffGranularity | undefined>();
  /**
   * The selected tab of the parallel sub-agents this delegate call begins (narrow screens show them
   * as tabs), kept on the batch's first call for the same reason.
   */
  batchTab = $state(0);
  /** The open correction editor of this step, if any. */
  #draft = $state<CorrectionDraft | null>(null);
  /**
   * The decision being made on this tool call while it waits, made on first use: only a waiting
   * call needs one, and a long chain should not pay for it on every step. It is never replaced,
   * so the field itself need not be reactive (its own fields are).
   */
  #decision: ApprovalDecision | undefined;
  /** For an `ask_user` call: the observation that carries the answer, once it came (PROTOCOL.md §25.2). */
  #answerStep = $state.raw<StepView | undefined>(undefined);
  /** The answer being written to this step's question, made on first use like the decision. */
  #answer: QuestionAnswer | undefined;

  constructor(step: Step) {
    this.stepId = step.stepId;
    this.kind = step.kind;
    this.index = step.index;
    this.parentId = step.parentId;
    this.correctionOf = step.correctionOf;
    this.scope = step.scope;
    this.by = step.by;
    this.byName = step.byName;
    this.lessons = step.lessons;
    this.#content = $state(step.content);
    this.#status = $state(step.status);
    this.#tool = $state(step.tool);
    this.#result = $state.raw(step.result);
    this.#correction = $state.raw(step.correction);
    this.#approval = $state.raw(step.approval);
    this.#question = $state.raw(step.question);
    this.#breakpoint = $state.raw(step.breakpoint);
    this.#usage = $state.raw(step.usage);
    this.#startedAt = $state(step.startedAt);
    this.#completedAt = $state(step.completedAt);
    // A step first seen mid-stream fades in its first words too (and starts its pace); one loaded complete just shows.
    if (step.status === 'streaming' && step.content !== '') {
      if (this.#streamsFast(step.content.length)) this.#fast = true;
      this.#freshStarts = [0];
    }
  }

  get content(): string {
    return this.#content;
  }

  get status(): StepStatus {
    return this.#status;
  }

  get tool(): string | undefined {
    return this.#tool;
  }

  get result(): unknown {
    return this.#result;
  }

  get correction(): CorrectionInfo | undefined {
    return this.#correction;
  }

  get approval(): StepApproval | undefined {
    return this.#approval;
  }

  /** The approve / reject decision on this step while it waits for one. */
  get decision(): ApprovalDecision {
    this.#decision ??= new ApprovalDecision();
    return this.#decision;
  }

  get question(): StepQuestion | undefined {
    return this.#question;
  }

  get breakpoint(): StepBreakpoint | undefined {
    return this.#breakpoint;
  }

  /** The observation that answers this step's question, if any. */
  get answerStep(): StepView | undefined {
    return this.#answerStep;
  }

  /** Set by the session view when the answer's observation arrives (the latest on the live chain wins). */
  linkAnswer(answer: StepView): void {
    if (this.#answerStep !== answer) this.#answerStep = answer;
  }

  /** The answer to this step's question while it waits for one. */
  get answer(): QuestionAnswer {
    this.#answer ??= new QuestionAnswer();
    return this.#answer;
  }

  /** Whether an answer to this step's question is on its way. */
  get answering(): boolean {
    return this.#answer?.sending === true;
  }

  /** Whether a decision on this step is on its way (never true for a step that was not decided on). */
  get deciding(): boolean {
    return this.#decision?.sending != null;
  }

  get usage(): CallUsage | undefined {
    return this.#usage;
  }

  get startedAt(): string | undefined {
    return this.#startedAt;
  }

  get completedAt(): string | undefined {
    return this.#completedAt;
  }

  get freshStarts(): readonly number[] {
    return this.#freshStarts;
  }

  get fast(): boolean {
    return this.#fast;
  }

  get draft(): CorrectionDraft | null {
    return this.#draft;
  }

  /** Copy what changed from the reducer's step. Unchanged fields are not written, so nothing re-renders for them. */
  sync(step: Step): void {
    if (step.content !== this.#content) {
      // Text only grows while streaming; anything else (a snapshot, a completion) shows at once.
      const appended = step.status === 'streaming' && step.content.startsWith(this.#content);
      const fast = appended && this.#streamsFast(step.content.length - this.#content.length);
      if (fast !== this.#fast) this.#fast = fast;
      this.#freshStarts = appended && !fast ? [...this.#freshStarts, this.#content.length].slice(-FRESH_RUNS) : [];
      this.#content = step.content;
    }
    if (step.status !== this.#status) {
      this.#status = step.status;
      if (step.status !== 'streaming') this.#freshStarts = [];
    }
    if (step.tool !== this.#tool) this.#tool = step.tool;
    if (step.result !== this.#result) this.#result = step.result;
    if (step.correction !== this.#correction) this.#correction = step.correction;
    if (step.approval !== this.#approval) this.#approval = step.approval;
    if (step.question !== this.#question) this.#question = step.question;
    if (step.breakpoint !== this.#breakpoint) this.#breakpoint = step.breakpoint;
    if (step.usage !== this.#usage) this.#usage = step.usage;
    if (step.startedAt !== this.#startedAt) this.#startedAt = step.startedAt;
    if (step.completedAt !== this.#completedAt) this.#completedAt = step.completedAt;
    if (step.status === 'invalidated' && this.#draft && !this.#draft.pending) this.#draft = null;
  }

  /** Count `chars` more streamed text and judge the step's pace since its text began. */
  #streamsFast(chars: number): boolean {
    const now = performance.now();
    this.#pace ??= { since: now, chars: 0 };
    this.#pace.chars += chars;
    return (this.#pace.chars * 1_000) / Math.max(now - this.#pace.since, PACE_WINDOW_MS) > FAST_CHARS_PER_SECOND;
  }

  /** Open the correction editor with the current content (or keep the one already open). */
  openEditor(): CorrectionDraft {
    this.#draft ??= new CorrectionDraft(this.kind, this.#content);
    return this.#draft;
  }

  closeEditor(): void {
    this.#draft = null;
  }

  get isStreaming(): boolean {
    return this.#status === 'streaming';
  }

  /** How long the step took to stream, when both ends are known. */
  get durationMs(): number | undefined {
    if (!this.#startedAt || !this.#completedAt) return undefined;
    const ms = Date.parse(this.#completedAt) - Date.parse(this.#startedAt);
    return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
  }
}
