import { allowsLifecycle, isActive, type InterthoughtClient, type LifecycleRequest, type SessionInfo, type SessionStatus, type SessionUpdate } from '@interthought/protocol';
import type { AccessGate } from '$lib/access/access-gate.svelte.js';
import type { Announcer } from '$lib/app/announcer.svelte.js';
import type { ConnectionStatus } from '$lib/app/connection-status.svelte.js';
import { describeError, errorCodeAndMessage } from '$lib/app/error-text.js';
import { isOwnActor } from '$lib/attribution/own-actor.js';
import type { OwnConnections } from '$lib/app/own-connections.js';
import type { Toaster } from '$lib/app/toaster.svelte.js';
import type { DecisionKind } from '$lib/chain/approval-decision.svelte.js';
import type { ChainActions } from '$lib/chain/chain-context.js';
import { replayFields, type ReplayTarget } from '$lib/replay/replay-target.js';
import type { CorrectionDraft } from '$lib/chain/correction-draft.svelte.js';
import { SessionView } from '$lib/chain/session-view.svelte.js';
import type { FrameScheduler } from '$lib/chain/frame-scheduler.js';
import type { StepView } from '$lib/chain/step-view.svelte.js';
import type { MessageDraft } from '$lib/conversation/message-draft.svelte.js';
import type { I18n } from '$lib/i18n/index.js';
import { FULL_RIGHTS, sessionRights, type SessionRights } from '$lib/sharing/session-rights.js';
import type { ShareScope } from '$lib/sharing/share-scope.js';

export interface SessionControllerDeps {
  client: Pick<InterthoughtClient, 'subscribe' | 'request' | 'hello'>;
  i18n: I18n;
  toaster: Toaster;
  announcer: Announcer;
  ownConnections: OwnConnections;
  schedule?: FrameScheduler;
  /** The connection's hello as reactive state: who the page is to the session. Without it, the page may do everything (as before users). */
  connection?: Pick<ConnectionStatus, 'hello'>;
  /** What the server said of this page (`me.auth`: a server without sign-in offers no sharing). */
  access?: Pick<AccessGate, 'me'>;
  /** The tab's share links: a page opened with one shows no editing control until the hello says what the link allows. */
  shares?: Pick<ShareScope, 'holds'>;
  /** A session was made from this one (a fork): show it (the page navigates there). */
  openSession?: (session: SessionInfo) => void | Promise<void>;
}

type LifecycleCommand = LifecycleRequest;

/**
 * Connects one SessionView to the server: follows the session through the client (which
 * resumes with `afterSeq` across reconnects), sends corrections, approvals, messages, forks and
 * pause/resume/cancel, and turns every refusal into something the user sees — in the editor, the
 * composer or as a toast.
 */
export class SessionController implements ChainActions {
  readonly view: SessionView;
  /** The lifecycle command waiting for its answer, to disable the buttons meanwhile. */
  #busy = $state<LifecycleCommand | null>(null);
  #stopFollowing: (() => void) | null = null;

  constructor(
    private readonly deps: SessionControllerDeps,
    readonly sessionId: string,
  ) {
    this.view = new SessionView(sessionId, {
      ...(deps.schedule ? { schedule: deps.schedule } : {}),
      // An event that does not fit means our state is wrong: start over from a fresh snapshot.
      onDesync: () => this.#follow(),
    });
  }

  get busy(): LifecycleCommand | null {
    return this.#busy;
  }

  /** Start following the session (a snapshot first, then live events). */
  start(): void {
    this.#follow();
  }

  #follow(): void {
    this.#stopFollowing?.();
    this.#stopFollowing = this.deps.client.subscribe(this.sessionId, (update) => this.#receive(update), {
      onError: (error) => {
        const { code, message } = errorCodeAndMessage(error);
        if (this.view.phase === 'ready') this.#toast(error);
        else this.view.fail(code, message);
      },
    });
  }

  #receive(update: SessionUpdate): void {
    if (update.type === 'session.snapshot') this.view.loadSnapshot(update);
    else this.view.enqueue(update);
  }

  dispose(): void {
    this.#stopFollowing?.();
    this.#stopFollowing = null;
    this.view.dispose();
  }

  /** Whether a correction, decision or message was made by this page's user (see `isOwnActor`). */
  isOwnConnection(by: string | undefined): boolean {
    const hello = this.deps.connection?.hello ?? this.deps.client.hello;
    return isOwnActor(by, { hello, connectionId: this.deps.client.hello?.connectionId, ownConnections: this.deps.ownConnections });
  }

  /** What this page may do to the session: its owner everything, a share link's holder what the link allows. Reactive. */
  get rights(): SessionRights {
    if (!this.deps.connection) return FULL_RIGHTS;
    return sessionRights({
      hello: this.deps.connection.hello,
      sessionId: this.sessionId,
      owner: this.view.info?.owner,
      pending: this.view.info === null,
      expectShare: this.deps.shares?.holds(this.sessionId) ?? false,
      auth: this.deps.access?.me?.auth,
    });
  }

  async submitCorrection(step: StepView, draft: CorrectionDraft): Promise<string | undefined> {
    let replacement: string | undefined;
    // A refusal leaves the editor open with the user's text; the draft shows it inside.
    await draft.submit(async (content, note) => {
      const accepted = await this.deps.client.request({
        type: 'step.correct',
        sessionId: this.sessionId,
        stepId: step.stepId,
        content,
        ...(note !== undefined ? { note } : {}),
        baseRevision: this.view.info?.revision ?? 0,
      });
      replacement = accepted.newStepId;
      step.closeEditor();
      this.deps.announcer.announce(this.deps.i18n.t('announce.corrected'));
    });
    return replacement;
  }

  /** Run a tool call that waits for approval, as proposed (`tool.approve`); with `remember`, its tool's later calls too (PROTOCOL.md §25.3). */
  approve(step: StepView, options: { remember?: 'session' } = {}): Promise<void> {
    const remember = options.remember;
    return this.#decide(step, 'approve', () =>
      this.deps.client.request({ type: 'tool.approve', sessionId: this.sessionId, stepId: step.stepId, ...(remember !== undefined ? { remember } : {}) }),
    );
  }

  /** Answer the question an `ask_user` call waits on (`input.provide`, PROTOCOL.md §25.2); a refusal becomes a toast and the text stays. */
  async answerQuestion(step: StepView, text: string): Promise<void> {
    try {
      const sent = await step.answer.send(text, (answer) => this.deps.client.request({ type: 'input.provide', sessionId: this.sessionId, stepId: step.stepId, text: answer }));
      if (sent) this.deps.announcer.announce(this.deps.i18n.t('announce.answered'));
    } catch (error) {
      this.#toast(error);
    }
  }

  /** Take back the approval remembered for `tool`, or all of them (`approvals.forget`, PROTOCOL.md §25.3); a refusal becomes a toast. */
  async forget(tool?: string): Promise<void> {
    try {
      await this.deps.client.request({ type: 'approvals.forget', sessionId: this.sessionId, ...(tool !== undefined ? { tool } : {}) });
      this.deps.announcer.announce(tool === undefined ? this.deps.i18n.t('announce.forgotAll') : this.deps.i18n.t('announce.forgot', { tool }));
    } catch (error) {
      this.#toast(error);
    }
  }

  /** Refuse it, with the reason the user wrote if any (`tool.reject`): the agent goes on without running it. */
  reject(step: StepView): Promise<void> {
    const reason = step.decision.reasonToSend;
    return this.#decide(step, 'reject', () =>
      this.deps.client.request({ type: 'tool.reject', sessionId: this.sessionId, stepId: step.stepId, ...(reason !== undefined ? { reason } : {}) }),
    );
  }

  /** Send a decision once (the step's buttons wait for it); a refusal, e.g. decided meanwhile elsewhere, becomes a toast. */
  async #decide(step: StepView, kind: DecisionKind, send: () => Promise<unknown>): Promise<void> {
    try {
      const sent = await step.decision.send(kind, send);
      if (sent) this.deps.announcer.announce(this.deps.i18n.t(kind === 'approve' ? 'announce.approved' : 'announce.rejected'));
    } catch (error) {
      this.#toast(error);
    }
  }

  /**
   * Send what the composer holds (`session.message`). It shows at once as "sending" under the
   * chain; a running agent gets it in the draft's mode. A refusal puts the text back in the box.
   */
  async sendMessage(draft: MessageDraft): Promise<void> {
    if (!this.view.acceptsMessages) return;
    const text = draft.take();
    if (text === null) return;
    const status = this.view.info?.status;
    // The mode only means something while the agent runs; otherwise the message starts a turn.
    const mode = isActive(status) ? draft.mode : undefined;
    const outgoing = this.view.outgoing.add(text, mode ?? 'steer');
    try {
      const accepted = await this.deps.client.request({ type: 'session.message', sessionId: this.sessionId, text, ...(mode ? { mode } : {}) });
      this.view.outgoing.accepted(outgoing.localId, accepted.stepId, (stepId) => this.view.holdsMessage(stepId));
      this.deps.announcer.announce(this.deps.i18n.t(accepted.queued ? 'announce.messageQueued' : 'announce.messageSent'));
    } catch (error) {
      this.view.outgoing.remove(outgoing.localId);
      draft.refused(text, error);
    }
  }

  /** Fork a new session from a copy of the path to `step` (run at once on `replay`'s agent) and open it; a refusal becomes a toast. */
  async fork(step: StepView, replay?: ReplayTarget): Promise<void> {
    try {
      const created = await this.deps.client.request({ type: 'session.fork', sessionId: this.sessionId, stepId: step.stepId, ...(replay === undefined ? {} : replayFields(replay)) });
      this.deps.announcer.announce(this.deps.i18n.t(replay === undefined ? 'announce.forked' : 'replay.started'));
      await this.deps.openSession?.(created.session);
    } catch (error) {
      this.#toast(error);
    }
  }

  /** Stop one sub-agent (`subagent.cancel`, PROTOCOL.md §24.6): its run ends `cancelled` and its parent goes on. */
  async cancelSubagent(scope: string): Promise<void> {
    try {
      await this.deps.client.request({ type: 'subagent.cancel', sessionId: this.sessionId, scope });
      const name = this.view.subagent(scope)?.name ?? scope;
      this.deps.announcer.announce(this.deps.i18n.t('announce.subagentCancelled', { name }));
    } catch (error) {
      this.#toast(error);
    }
  }

  /** Load the session again after it failed to load (the error state's Retry). */
  retry(): void {
    this.view.expectSnapshot();
    this.#follow();
  }

  pause(): Promise<void> {
    return this.#lifecycle('pause');
  }

  resume(): Promise<void> {
    return this.#lifecycle('resume');
  }

  cancel(): Promise<void> {
    return this.#lifecycle('cancel');
  }

  async #lifecycle(command: LifecycleCommand): Promise<void> {
    if (this.#busy) return;
    this.#busy = command;
    try {
      const type = `session.${command}` as const;
      await this.deps.client.request({ type, sessionId: this.sessionId });
    } catch (error) {
      this.#toast(error);
    } finally {
      this.#busy = null;
    }
  }

  #toast(error: unknown): void {
    const text = describeError(error, this.deps.i18n);
    this.deps.toaster.show({ tone: 'error', title: text.message, hint: text.hint });
  }

  /** Which lifecycle buttons make sense in a status: the protocol's rule, the one the server applies. */
  static allowed(status: SessionStatus | undefined): Record<LifecycleCommand, boolean> {
    return { pause: allowsLifecycle('pause', status), resume: allowsLifecycle('resume', status), cancel: allowsLifecycle('cancel', status) };
  }
}
