import { expect } from 'vitest';
import { SessionError } from '../../../src/core/session-error.js';

/**
 * Run `action` (a core command, which rejects when it refuses), expect it to fail with a
 * SessionError with `code`, and return that error.
 */
export async function refusal(action: () => unknown, code: string): Promise<SessionError> {
  let thrown: unknown;
  try {
    await action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a ${code} refusal`).toBeInstanceOf(SessionError);
  const error = thrown as SessionError;
  expect(error.code).toBe(code);
  return error;
}
