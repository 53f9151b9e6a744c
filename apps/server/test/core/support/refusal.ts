import { expect } from 'vitest';
import { SessionError } from '../../../src/core/session-error.js';

/** Run `action`, expect it to throw a SessionError with `code`, and return that error. */
export function refusal(action: () => unknown, code: string): SessionError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a ${code} refusal`).toBeInstanceOf(SessionError);
  const error = thrown as SessionError;
  expect(error.code).toBe(code);
  return error;
}
