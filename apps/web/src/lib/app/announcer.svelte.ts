/** Status changes for screen readers, read out politely (an `aria-live="polite"` region shows `message`). */
export class Announcer {
  #message = $state('');
  #timer: ReturnType<typeof setTimeout> | null = null;

  get message(): string {
    return this.#message;
  }

  announce(text: string): void {
    // Clearing first makes a repeated message ("Session running" twice) be read again.
    this.#message = '';
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#message = text;
      this.#timer = null;
    }, 50);
  }
}
