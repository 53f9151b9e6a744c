import type { InterthoughtClient } from '@interthought/protocol';
import { describeError, type ErrorText } from '$lib/app/error-text.js';
import type { Toaster } from '$lib/app/toaster.svelte.js';
import type { I18n } from '$lib/i18n/index.js';
import type { SessionList } from './session-list.svelte.js';

/** The session the confirmation asks about. */
export interface DeletionTarget {
  sessionId: string;
  task: string;
}

export interface SessionDeletionDeps {
  client: Pick<InterthoughtClient, 'request'>;
  sessionList: Pick<SessionList, 'remove'>;
  toaster: Pick<Toaster, 'show'>;
  i18n: I18n;
  /** Called once a deletion asked for here succeeded (the layout leaves that session's page). */
  onDeleted?: (sessionId: string) => void;
}

/**
 * Deleting a session, for everyone watching it: `ask` opens the confirmation, `confirm` sends
 * `session.delete` through the socket client. A refusal stays in the confirmation with the
 * server's message and what to do; success drops the session from the rail at once.
 */
export class SessionDeletion {
  /** The session the confirmation is open for, if any. */
  #asking = $state.raw<DeletionTarget | null>(null);
  /** The `session.delete` request is waiting for its answer. */
  #pending = $state(false);
  /** Why the last attempt failed, shown in the confirmation. */
  #error = $state.raw<ErrorText | null>(null);

  constructor(private readonly deps: SessionDeletionDeps) {}

  get asking(): DeletionTarget | null {
    return this.#asking;
  }

  get pending(): boolean {
    return this.#pending;
  }

  get error(): ErrorText | null {
    return this.#error;
  }

  /** Open the confirmation for `target` (ignored while another deletion is being sent). */
  ask(target: DeletionTarget): void {
    if (this.#pending) return;
    this.#asking = target;
    this.#error = null;
  }

  /** Close the confirmation without deleting (not while the request is on its way). */
  dismiss(): void {
    if (this.#pending) return;
    this.#asking = null;
    this.#error = null;
  }

  /** Delete the session asked about; resolves true when the server confirmed it. */
  async confirm(): Promise<boolean> {
    const target = this.#asking;
    if (!target || this.#pending) return false;
    this.#pending = true;
    this.#error = null;
    try {
      await this.deps.client.request({ type: 'session.delete', sessionId: target.sessionId });
    } catch (error) {
      const text = describeError(error, this.deps.i18n);
      if (text.code === 'SESSION_NOT_FOUND') {
        // Already gone (deleted elsewhere): say so, and the rail stops offering it.
        this.#error = { ...text, hint: this.deps.i18n.t('delete.goneHint') };
        this.deps.sessionList.remove(target.sessionId);
      } else {
        this.#error = text;
      }
      return false;
    } finally {
      this.#pending = false;
    }
    this.deps.sessionList.remove(target.sessionId);
    this.#asking = null;
    this.deps.toaster.show({ tone: 'info', title: this.deps.i18n.t('delete.done') });
    this.deps.onDeleted?.(target.sessionId);
    return true;
  }
}
