import { createDefaultTools } from '../../apps/server/src/tools/index.js';
import { startTurnSpan, type TracedSession } from '../../apps/server/src/tracing/turn-span.js';
import { traceToolCall } from '../../apps/server/src/tracing/tool-call-span.js';

const session = { id: 's1', state: { session: { revision: 0 }, chain: [], steps: new Map() }, head: () => undefined } as unknown as TracedSession;
const tool = createDefaultTools().get('calculator')!;
const signal = new AbortController().signal;
const result = Promise.resolve({ output: 1, text: '1' });

/** Nanoseconds per call of `body`, best of `rounds` rounds of `iterations`. */
function nanosPerCall(body: () => unknown, iterations: number, rounds = 5): number {
  let best = Number.POSITIVE_INFINITY;
  let sink: unknown;
  for (let round = 0; round < rounds; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) sink = body();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / iterations);
  }
  if (sink === Symbol.for('never')) console.log(sink);
  return best;
}

/**
 * What the span hooks of one run cost when tracing is off: starting and ending the turn span,
 * and a tool span around an execution (the tool's own promise is made outside the timing).
 */
export function hookCost(iterations: number): { turnNanos: number; toolNanos: number; emptyNanos: number } {
  return {
    emptyNanos: nanosPerCall(() => signal, iterations),
    turnNanos: nanosPerCall(() => {
      const turn = startTurnSpan(session, 'demo');
      turn.end(undefined, signal);
      return turn;
    }, iterations),
    toolNanos: nanosPerCall(() => traceToolCall(tool, signal, () => result), iterations),
  };
}
