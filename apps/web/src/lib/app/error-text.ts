import type { I18n } from '$lib/i18n/index.js';

/** An error as the UI shows it: the server's message and, when we know one, what to do about it. */
export interface ErrorText {
  code: string;
  message: string;
  hint: string;
}

/** Read any thrown value (InterthoughtError, ApiError, Error) as a code and message. */
export function errorCodeAndMessage(error: unknown): { code: string; message: string } {
  if (error && typeof error === 'object') {
    const record = error as { code?: unknown; message?: unknown };
    const code = typeof record.code === 'string' ? record.code : 'INTERNAL';
    const message = typeof record.message === 'string' && record.message ? record.message : String(error);
    return { code, message };
  }
  return { code: 'INTERNAL', message: String(error) };
}

/** The error's message with a hint in the user's language. */
export function describeError(error: unknown, i18n: I18n): ErrorText {
  const { code, message } = errorCodeAndMessage(error);
  const key = `error.hint.${code}`;
  return { code, message, hint: i18n.has(key) ? i18n.t(key) : i18n.t('error.hint.default') };
}
