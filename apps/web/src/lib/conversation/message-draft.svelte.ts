import { FIELD_LIMITS, type MessageMode } from '@interthought/protocol';
import { errorCodeAndMessage } from '$lib/app/error-text.js';

/** Why a draft cannot be sent as it is. */
export type MessageProblem = 'empty' | 'too_long';

/**
 * What the user is writing in the composer: the text, when a running agent should read it
 * (`steer` at its next step, the default, or `queue` after its turn), and the server's refusal of
 * the last message sent. A refused message comes back into the box: nothing typed is lost.
 */
export class MessageDraft {
  #text = $state('');
  #mode = $state<MessageMode>('steer');
  #error = $state.raw<{ code: string; message: string } | null>(null);

  get text(): string {
    return this.#text;
  }

  get mode(): MessageMode {
    return this.#mode;
  }

  get error(): { code: string; message: string } | null {
    return this.#error;
  }

  setText(text: string): void {
    this.#text = text;
  }

  setMode(mode: MessageMode): void {
    this.#mode = mode;
  }

  /** Why the text cannot be sent now, if it cannot. */
  get problem(): MessageProblem | null {
    const text = this.#text.trim();
    if (text === '') return 'empty';
    return text.length > FIELD_LIMITS.messageMax ? 'too_long' : null;
  }

  /** Take the text out of the box to send it (trimmed), or `null` when there is nothing sendable. */
  take(): string | null {
    if (this.problem !== null) return null;
    const text = this.#text.trim();
    this.#text = '';
    this.#error = null;
    return text;
  }

  /** The server refused `text`: it goes back into the box (before anything typed since), with the reason. */
  refused(text: string, error: unknown): void {
    const typedSince = this.#text.trim();
    this.#text = typedSince === '' ? text : `${text}\n\n${this.#text}`;
    this.#error = errorCodeAndMessage(error);
  }

  dismissError(): void {
    this.#error = null;
  }
}
