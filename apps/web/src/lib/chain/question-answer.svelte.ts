import { ASK_USER_LIMITS } from '@interthought/protocol';

/**
 * The user's answer to one waiting question (PROTOCOL.md §25.2) while it is being written: the
 * text in the field and the answer on its way (the card disables itself meanwhile). A refused
 * answer keeps the text as typed, so nothing the user wrote is lost.
 */
export class QuestionAnswer {
  #text = $state('');
  #sending = $state(false);
  /** The card took the focus for this question once: a card mounted again (scrolled back into a long chain) leaves it be. */
  #focused = false;

  get text(): string {
    return this.#text;
  }

  setText(text: string): void {
    this.#text = text;
  }

  get sending(): boolean {
    return this.#sending;
  }

  /** Whether the card may take the focus now: the first time only (plain field, nothing reacts to it). */
  claimFocus(): boolean {
    if (this.#focused) return false;
    this.#focused = true;
    return true;
  }

  /** What typing would send: the text trimmed, or undefined when there is nothing to send. */
  get textToSend(): string | undefined {
    const text = this.#text.trim();
    return text === '' ? undefined : text.slice(0, ASK_USER_LIMITS.answerMax);
  }

  /**
   * Send `text` with `send`. Nothing is sent while another answer is on its way (resolves
   * `false`); `send`'s error is rethrown for the caller to show, with the typed text kept.
   */
  async send(text: string, send: (text: string) => Promise<unknown>): Promise<boolean> {
    if (this.#sending) return false;
    this.#sending = true;
    try {
      await send(text);
      this.#text = '';
      return true;
    } finally {
      this.#sending = false;
    }
  }
}
