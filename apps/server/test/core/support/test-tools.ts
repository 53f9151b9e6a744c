import { z } from 'zod';
import { ToolError, type Tool } from '../../../src/tools/tool.js';

/** Adds two numbers: a tool with a strict schema, to check corrected tool input for real. */
export const adderTool: Tool<{ a: number; b: number }> = {
  name: 'adder',
  description: 'Adds two numbers.',
  effect: 'read',
  inputSchema: z.strictObject({ a: z.number(), b: z.number() }),
  async execute({ a, b }) {
    if (!Number.isFinite(a + b)) throw new ToolError('the sum is not finite');
    return { output: { sum: a + b }, text: `${a} + ${b} = ${a + b}` };
  },
};

/** A tool that runs until its signal aborts, recording the signals it was given. */
export class WaitingTool implements Tool<{ label: string }> {
  readonly name = 'waiter';
  readonly description = 'Waits until aborted.';
  readonly effect = 'read';
  readonly inputSchema = z.strictObject({ label: z.string() });
  readonly signals: AbortSignal[] = [];

  execute(_input: { label: string }, signal: AbortSignal): Promise<{ output: unknown; text: string }> {
    this.signals.push(signal);
    return new Promise((_resolve, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }
}

/** A tool that changes something (it appends to a ledger): by default its calls wait for approval. Records each run. */
export class LedgerTool implements Tool<{ entry: string }> {
  readonly name = 'ledger';
  readonly description = 'Appends an entry to a ledger.';
  readonly effect = 'change';
  readonly inputSchema = z.strictObject({ entry: z.string().min(1) });
  readonly entries: string[] = [];

  async execute(input: { entry: string }): Promise<{ output: unknown; text: string }> {
    this.entries.push(input.entry);
    return { output: { written: input.entry, count: this.entries.length }, text: `Wrote "${input.entry}" (${this.entries.length} entries).` };
  }
}

/**
 * `write_file`, a tool that changes something (by default its calls wait for approval), as a spy:
 * it writes nothing, and records the path of every call it ran, so a test proves which calls ran
 * and that one a rule denied never did.
 */
export class WriteFileSpy implements Tool<{ path: string; text?: string | undefined }> {
  readonly name = 'write_file';
  readonly description = 'Writes a file (a test spy: it records the path).';
  readonly effect = 'change';
  readonly inputSchema = z.strictObject({ path: z.string().min(1), text: z.string().optional() });
  readonly written: string[] = [];

  async execute(input: { path: string; text?: string | undefined }): Promise<{ output: unknown; text: string }> {
    this.written.push(input.path);
    return { output: { path: input.path }, text: `Wrote ${input.path}.` };
  }
}
