import { FIELD_LIMITS, MessageModeSchema, SessionOptionsSchema, isWellFormedText, issuesToDetails, type MessageMode, type SessionOptions } from '@interthought/protocol';
import { SessionError } from '../session-error.js';

/*
 * Checks of what callers hand the core. The transport already validated the frame against
 * the protocol schemas; these keep the core safe when it is called directly (REST, tests, scripts).
 */

/** `BAD_FRAME` for text that could not be stored exactly (a lone UTF-16 surrogate): refused, never altered. */
export function checkWellFormed(field: string, text: string): void {
  if (isWellFormedText(text)) return;
  throw new SessionError('BAD_FRAME', `Text must be well-formed Unicode: ${field} has a lone UTF-16 surrogate, which cannot be stored exactly.`, [
    { path: [field], message: 'Text must be well-formed Unicode: this string has a lone UTF-16 surrogate' },
  ]);
}

/** The task, if it is 1 to `taskMax` characters of well-formed text; otherwise `BAD_FRAME`. */
export function checkTask(task: unknown): string {
  if (typeof task === 'string' && task.length >= 1 && task.length <= FIELD_LIMITS.taskMax) {
    checkWellFormed('task', task);
    return task;
  }
  throw new SessionError('BAD_FRAME', `A task must be 1 to ${FIELD_LIMITS.taskMax} characters.`, [
    { path: ['task'], message: `Expected 1 to ${FIELD_LIMITS.taskMax} characters` },
  ]);
}

/** A message's text: 1 to `messageMax` characters of well-formed text; otherwise `BAD_FRAME`. */
export function checkMessageText(text: unknown): string {
  if (typeof text !== 'string' || text.length === 0 || text.length > FIELD_LIMITS.messageMax) {
    throw new SessionError('BAD_FRAME', `A message must be 1 to ${FIELD_LIMITS.messageMax} characters.`, [
      { path: ['text'], message: `Expected 1 to ${FIELD_LIMITS.messageMax} characters` },
    ]);
  }
  checkWellFormed('text', text);
  return text;
}

/** A message's mode, `steer` when none is given; otherwise `BAD_FRAME`. */
export function checkMessageMode(mode: unknown): MessageMode {
  if (mode === undefined) return 'steer';
  const parsed = MessageModeSchema.safeParse(mode);
  if (parsed.success) return parsed.data;
  throw new SessionError('BAD_FRAME', 'A message mode is "steer" or "queue".', [{ path: ['mode'], message: 'Expected "steer" or "queue"' }]);
}

/** A rejection's reason: at most `noteMax` characters of well-formed text; otherwise `BAD_FRAME`. */
export function checkReason(reason: unknown): string {
  if (typeof reason !== 'string' || reason.length > FIELD_LIMITS.noteMax) {
    throw new SessionError('BAD_FRAME', `A reason must be at most ${FIELD_LIMITS.noteMax} characters.`, [
      { path: ['reason'], message: `Expected at most ${FIELD_LIMITS.noteMax} characters` },
    ]);
  }
  checkWellFormed('reason', reason);
  return reason;
}

/** The options as the protocol schema parses them; `BAD_FRAME` with one detail per issue otherwise. */
export function checkOptions(options: unknown): SessionOptions {
  if (options === undefined) return {};
  const parsed = SessionOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const details = issuesToDetails(parsed.error.issues).map((detail) => ({ ...detail, path: ['options', ...detail.path] }));
  throw new SessionError('BAD_FRAME', `Invalid session options: ${details[0]?.path.join('.')}: ${details[0]?.message}`, details);
}
