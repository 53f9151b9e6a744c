import { FIELD_LIMITS } from '@interthought/protocol';

/** What the user decides on a tool call that waits for approval (an edit goes through the correction editor). */
export type DecisionKind = 'approve' | 'reject';

/**
 * The user's decision on one tool call that waits for approval, while it is being made: the
 * optional reason of a rejection being written, and the request on its way (the card disables
 * its buttons meanwhile). A refused request keeps the reason as typed.
 */
export class ApprovalDecision {
  #sending = $state<DecisionKind | null>(null);
  #rejecting = $state(false);
  #reason = $state('');

  /** The decision on its way to the server, if any. */
  get sending(): DecisionKind | null {
    return this.#sending;
  }

  /** Whether the reason field before a rejection is open. */
  get rejecting(): boolean {
    return this.#rejecting;
  }

  get reason(): string {
    return this.#reason;
  }

  setReason(reason: string): void {
    this.#reason = reason;
  }

  /** Open the optional-reason field that comes before a rejection. */
  openReject(): void {
    this.#rejecting = true;
  }

  /** Close it again (not while the rejection is on its way). */
  closeReject(): void {
    if (this.#sending === null) this.#rejecting = false;
  }

  /** The reason to send, or undefined when the user left it blank. */
  get reasonToSend(): string | undefined {
    const reason = this.#reason.trim();
    return reason === '' ? undefined : reason.slice(0, FIELD_LIMITS.noteMax);
  }

  /**
   * Send a decision with `send`. Nothing is sent while another decision is on its way (resolves
   * `false`); `send`'s error is rethrown for the caller to show, with the reason kept.
   */
  async send(kind: DecisionKind, send: () => Promise<unknown>): Promise<boolean> {
    if (this.#sending !== null) return false;
    this.#sending = kind;
    try {
      await send();
      this.#rejecting = false;
      this.#reason = '';
      return true;
    } finally {
      this.#sending = null;
    }
  }
}
