import type { MessageMode } from '@interthought/protocol';

/** A message the user sent from this page that the session does not show yet. */
export interface OutgoingMessage {
  /** This page's own id for it (the server's step id comes with `message.accepted`). */
  readonly localId: number;
  readonly text: string;
  readonly mode: MessageMode;
  /** The `user_message` step it is (or will be), once the server accepted it. */
  readonly stepId: string | undefined;
}

/**
 * The user's messages between Send and their arrival in the session's state: shown at once as
 * "sending", so the page answers the key press before the server does. An accepted message
 * leaves when its step (on the chain, or in the queue) is folded in; a refused one is taken back.
 */
export class OutgoingMessages {
  #messages = $state.raw<readonly OutgoingMessage[]>([]);
  #nextId = 1;

  /** Oldest first. */
  get messages(): readonly OutgoingMessage[] {
    return this.#messages;
  }

  add(text: string, mode: MessageMode): OutgoingMessage {
    const message: OutgoingMessage = { localId: this.#nextId++, text, mode, stepId: undefined };
    this.#messages = [...this.#messages, message];
    return message;
  }

  /** The server accepted it as step `stepId`; `known` says whether the state holds that step already. */
  accepted(localId: number, stepId: string, known: (stepId: string) => boolean): void {
    if (known(stepId)) this.remove(localId);
    else this.#messages = this.#messages.map((message) => (message.localId === localId ? { ...message, stepId } : message));
  }

  remove(localId: number): void {
    if (this.#messages.some((message) => message.localId === localId)) this.#messages = this.#messages.filter((message) => message.localId !== localId);
  }

  /** Drop the accepted messages whose step the state now holds (the session shows them itself). */
  settle(known: (stepId: string) => boolean): void {
    if (this.#messages.some((message) => message.stepId !== undefined && known(message.stepId))) {
      this.#messages = this.#messages.filter((message) => message.stepId === undefined || !known(message.stepId));
    }
  }
}
