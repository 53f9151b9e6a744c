import type { SessionEvent, Step } from '../../src/index.js';

/**
 * Events of one session numbered 1, 2, 3 … with a clock of one second per event, for tests that
 * write a session's log by hand. `reset()` starts the numbering again; `rewind()` takes back the
 * number of an event a test expected to be refused.
 */
export function eventBuilder(sessionId: string) {
  let seq = 0;
  const ev = <T extends Omit<SessionEvent, 'sessionId' | 'seq' | 'at'>>(event: T): SessionEvent =>
    ({ ...event, sessionId, seq: ++seq, at: `2025-01-01T00:00:${String(seq).padStart(2, '0')}.000Z` }) as unknown as SessionEvent;
  return {
    ev,
    reset: (): void => {
      seq = 0;
    },
    rewind: (): void => {
      seq -= 1;
    },
  };
}

/** A step as `step.started` carries it (streaming, empty, revision 0) unless told otherwise; any kind or status, known or not. */
export function stepOf(stepId: string, parentId: string | null, index: number, kind: string, status = 'streaming', content = ''): Step {
  return { stepId, parentId, index, kind, status, content, revision: 0 } as Step;
}
