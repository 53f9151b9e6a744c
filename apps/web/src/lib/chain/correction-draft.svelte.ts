import { FIELD_LIMITS, type StepKind } from '@interthought/protocol';
import { errorCodeAndMessage } from '$lib/app/error-text.js';

/** The outcome of checking a draft before it is sent. */
export type DraftCheck = { ok: true; content: string } | { ok: false; reason: 'empty' | 'too_long' | 'invalid_json'; detail?: string };

/** Tool input is edited as indented JSON, so it is readable and its errors point at a line. */
export function formatToolInput(content: string): string {
  try {
    return JSON.stringify(JSON.parse(content), null, 2);
  } catch {
    return content;
  }
}

/**
 * The correction editor of one step: the text being written, the optional note, and the state
 * of the request. The user's text survives a refused request, so nothing typed is ever lost.
 */
export class CorrectionDraft {
  readonly kind: StepKind;
  readonly original: string;
  /** The text the editor opened with (tool input pretty-printed). */
  readonly initialText: string;
  #text = $state('');
  #note = $state('');
  #noteOpen = $state(false);
  #pending = $state(false);
  /** The server's refusal of the last attempt (its error code and message), shown in the editor. */
  #error = $state.raw<{ code: string; message: string } | null>(null);

  constructor(kind: StepKind, content: string) {
    this.kind = kind;
    this.original = content;
    this.initialText = kind === 'tool_call' ? formatToolInput(content) : content;
    this.#text = this.initialText;
  }

  get text(): string {
    return this.#text;
  }

  get note(): string {
    return this.#note;
  }

  get noteOpen(): boolean {
    return this.#noteOpen;
  }

  get pending(): boolean {
    return this.#pending;
  }

  get error(): { code: string; message: string } | null {
    return this.#error;
  }

  setText(text: string): void {
    this.#text = text;
  }

  setNote(note: string): void {
    this.#note = note;
  }

  /** Show the note field (it starts folded away: most corrections need no reason). */
  openNote(): void {
    this.#noteOpen = true;
  }

  /**
   * Send the checked draft with `send` (given its content and note). The draft is pending until
   * `send` settles; a refusal is kept to show in the editor, with the user's text untouched.
   * Nothing is sent while the draft is invalid or already on its way.
   */
  async submit(send: (content: string, note: string | undefined) => Promise<void>): Promise<void> {
    const checked = this.check();
    if (!checked.ok || this.#pending) return;
    this.#pending = true;
    this.#error = null;
    try {
      await send(checked.content, this.noteToSend);
    } catch (error) {
      this.#error = errorCodeAndMessage(error);
    } finally {
      this.#pending = false;
    }
  }

  get isJson(): boolean {
    return this.kind === 'tool_call';
  }

  /** Check the draft: never empty, within the limit, and valid JSON for a tool call (sent compact). */
  check(): DraftCheck {
    const text = this.#text;
    if (text.trim() === '') return { ok: false, reason: 'empty' };
    if (!this.isJson) {
      return text.length > FIELD_LIMITS.correctionMax ? { ok: false, reason: 'too_long' } : { ok: true, content: text };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ok: false, reason: 'invalid_json', detail: error instanceof Error ? error.message : String(error) };
    }
    const content = JSON.stringify(value);
    return content.length > FIELD_LIMITS.correctionMax ? { ok: false, reason: 'too_long' } : { ok: true, content };
  }

  /** The note to send, or undefined when the user left it blank. */
  get noteToSend(): string | undefined {
    const note = this.#note.trim();
    return note === '' ? undefined : note.slice(0, FIELD_LIMITS.noteMax);
  }
}
