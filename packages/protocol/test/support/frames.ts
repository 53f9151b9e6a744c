import { parseClientMessage, type ErrorFrame } from '../../src/index.js';

/** A frame as the client would send it. */
export const text = (value: unknown): string => JSON.stringify(value);

/** Parse a frame that must be refused, and return its error frame. */
export function refusal(raw: string | Uint8Array): ErrorFrame {
  const result = parseClientMessage(raw);
  if (result.ok) throw new Error(`Expected a refusal, but ${JSON.stringify(result.message)} was accepted`);
  return result.error;
}

/** `n` characters. */
export const chars = (n: number, char = 'x'): string => char.repeat(n);
