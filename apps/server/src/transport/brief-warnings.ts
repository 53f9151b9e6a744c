/** What a logger must offer for brief warnings (pino's and Fastify's do). */
export interface WarnLogger {
  warn(fields: object, message: string): void;
}

/**
 * Protocol violations and refusals, logged briefly and at a bounded rate. A hostile client can
 * cause them at will, so each is one line without a stack trace, at most `perWindow` lines per
 * kind in each `windowMs`; the rest are counted and reported in one line when the window turns.
 */
export class BriefWarnings {
  readonly #windows = new Map<string, { startedAt: number; logged: number; suppressed: number }>();

  constructor(
    private readonly log: WarnLogger,
    private readonly perWindow = 10,
    private readonly windowMs = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  warn(kind: string, fields: object, message: string): void {
    const now = this.now();
    let window = this.#windows.get(kind);
    if (window === undefined || now - window.startedAt >= this.windowMs) {
      if (window !== undefined && window.suppressed > 0) {
        this.log.warn({ kind, suppressed: window.suppressed }, `${window.suppressed} more "${kind}" warnings were not logged in the last ${Math.round(this.windowMs / 1000)} s`);
      }
      window = { startedAt: now, logged: 0, suppressed: 0 };
      this.#windows.set(kind, window);
    }
    if (window.logged >= this.perWindow) {
      window.suppressed += 1;
      return;
    }
    window.logged += 1;
    this.log.warn({ kind, ...fields }, message);
  }
}

/** An error as one short field: its name, code and message, never its stack. */
export function briefError(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 200);
  const code = (error as { code?: unknown }).code;
  return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message}`.slice(0, 200);
}
