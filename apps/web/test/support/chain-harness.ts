import { flushSync, type Component } from 'svelte';
import { provideChain, type ChainActions } from '$lib/chain/chain-context.js';
import type { CorrectionDraft } from '$lib/chain/correction-draft.svelte.js';
import { SessionView } from '$lib/chain/session-view.svelte.js';
import type { StepView } from '$lib/chain/step-view.svelte.js';
import { I18n, provideI18n } from '$lib/i18n/index.js';
import { FULL_RIGHTS, type SessionRights } from '$lib/sharing/session-rights.js';
import { Clock, provideClock } from '$lib/time/clock.svelte.js';
import { mountProvided, type Mounted } from './mount-provided.js';
import { EventLog, ManualFrames } from './session-events.js';

/**
 * Chain actions that record what the components asked for; `answer` decides each correction's
 * fate and `answerDecision` each approval's (a rejection is recorded in `refusedDecisions`).
 */
export class RecordingActions implements ChainActions {
  readonly submitted: Array<{ stepId: string; content: string; note: string | undefined }> = [];
  readonly decisions: Array<{ stepId: string; kind: 'approve' | 'reject'; reason?: string | undefined; remember?: 'session' }> = [];
  /** The answers given to questions, in order (PROTOCOL.md §25.2). */
  readonly answers: Array<{ stepId: string; text: string }> = [];
  readonly refusedDecisions: unknown[] = [];
  /** The steps a fork was asked from, in order. */
  readonly forked: string[] = [];
  /** The sub-agents a cancel was asked for, in order. */
  readonly cancelledSubagents: string[] = [];
  answer: (draft: CorrectionDraft) => Promise<void> = async () => undefined;
  answerDecision: () => Promise<void> = async () => undefined;
  answerFork: () => Promise<void> = async () => undefined;
  /** What the page may do (set to a share link's rights to see what a viewer or editor sees). */
  rights: SessionRights = FULL_RIGHTS;

  async submitCorrection(view: StepView, draft: CorrectionDraft): Promise<string | undefined> {
    let replacement: string | undefined;
    await draft.submit(async (content, note) => {
      this.submitted.push({ stepId: view.stepId, content, note });
      await this.answer(draft);
      replacement = `${view.stepId}-corrected`;
      view.closeEditor();
    });
    return replacement;
  }

  approve(view: StepView, options: { remember?: 'session' } = {}): Promise<void> {
    return this.#decide(view, 'approve', options.remember);
  }

  async answerQuestion(view: StepView, text: string): Promise<void> {
    await view.answer.send(text, async (answer) => {
      this.answers.push({ stepId: view.stepId, text: answer });
    });
  }

  reject(view: StepView): Promise<void> {
    return this.#decide(view, 'reject');
  }

  async #decide(view: StepView, kind: 'approve' | 'reject', remember?: 'session'): Promise<void> {
    const reason = kind === 'reject' ? view.decision.reasonToSend : undefined;
    try {
      await view.decision.send(kind, async () => {
        this.decisions.push({ stepId: view.stepId, kind, ...(reason !== undefined ? { reason } : {}), ...(remember !== undefined ? { remember } : {}) });
        await this.answerDecision();
      });
    } catch (error) {
      this.refusedDecisions.push(error);
    }
  }

  async cancelSubagent(scope: string): Promise<void> {
    this.cancelledSubagents.push(scope);
  }

  async fork(view: StepView): Promise<void> {
    this.forked.push(view.stepId);
    await this.answerFork();
  }

  isOwnConnection(by: string | undefined): boolean {
    return by === 'c-1';
  }
}

export interface Harness {
  log: EventLog;
  frames: ManualFrames;
  session: SessionView;
  actions: RecordingActions;
  i18n: I18n;
  /** Feed the log's events (all, or from `afterSeq`) into the session and run the frame. */
  deliver(afterSeq?: number): void;
}

/** A session fed from an EventLog through the real SessionView, with hand-run frames. */
export function createHarness(locale: 'en' | 'zh' = 'en'): Harness {
  const log = new EventLog();
  const frames = new ManualFrames();
  const session = new SessionView(log.sessionId, { schedule: frames.schedule });
  session.loadSnapshot(log.emptySnapshot());
  const i18n = new I18n({ languages: [locale] });
  let delivered = 0;
  return {
    log,
    frames,
    session,
    actions: new RecordingActions(),
    i18n,
    deliver(afterSeq = delivered) {
      for (const event of log.since(afterSeq)) session.enqueue(event);
      delivered = log.events.length;
      flushSync(() => frames.run());
    },
  };
}

/** Mount a component with the chain, i18n and clock contexts; returns its container and a cleanup. */
export function mountInChain<Props extends Record<string, unknown>>(component: Component<Props>, props: Props, harness: Harness): Mounted {
  return mountProvided(component, props, () => {
    provideI18n(harness.i18n);
    provideClock(new Clock());
    provideChain({ session: harness.session, actions: harness.actions });
  });
}
