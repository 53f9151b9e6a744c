import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent, AgentRunContext, StepWriter } from '@interthought/agent';
import { DeltaPacer } from './delta-pacer.js';
import { parseFirehoseTask } from './firehose-params.js';
import { planFirehoseRun } from './firehose-plan.js';
import { DeltaTextFormat, nowMicros } from './firehose-text.js';

/**
 * Deltas written per timer tick at most. Each write awaits the session's pacing (a setImmediate
 * at tokenDelayMs 0), so awaiting them one by one caps a session far below the rates a benchmark
 * asks for; a bounded batch keeps the event loop responsive while a rate is caught up.
 */
export const MAX_DELTAS_PER_TICK = 512;

/**
 * The benchmark's load source (registered only when the server runs with INTERTHOUGHT_BENCH=1):
 * streams `thought` steps (or the `kinds` it is given, in turn) of stamped deltas at the rate its
 * task asks for, e.g. `firehose rate=20000 duration=5000 size=32`, then a one-line final answer.
 * `lead=N` writes N steps at once before the paced stream.
 */
export function createFirehoseAgent(): Agent {
  return {
    name: 'firehose',
    description: 'Benchmark load: stamped deltas at a set rate, e.g. task "firehose rate=20000 duration=5000 size=32".',
    descriptions: { zh: '基准测试负载：以设定的速率发送带时间戳的增量，例如任务 "firehose rate=20000 duration=5000 size=32"。' },
    availability: () => ({ available: true }),
    run: runFirehose,
  };
}

async function runFirehose(context: AgentRunContext): Promise<void> {
  const { sink, signal } = context;
  const params = parseFirehoseTask(context.task);
  const plan = planFirehoseRun(params, context.chain);
  if (plan.finished) return;
  const format = new DeltaTextFormat(params.size);
  let index = plan.firstIndex;
  let pacer = new DeltaPacer(Infinity);
  for (const [i, size] of plan.stepSizes.entries()) {
    // The start delay comes after the lead: a subscriber opens the lead's long chain, then watches the stream.
    if (i === plan.unpacedSteps) {
      if (plan.fresh && params.delayMs > 0) await sleep(params.delayMs, undefined, { signal });
      pacer = new DeltaPacer(params.rate);
    }
    const kind = params.kinds[(plan.firstStep + i) % params.kinds.length] ?? 'thought';
    const writer = sink.start(kind);
    await streamDeltas(writer, { first: index, count: size, pacer, format, signal });
    writer.end();
    index += size;
  }
  signal.throwIfAborted();
  const answer = sink.start('final_answer');
  await answer.write(`Streamed ${params.count} deltas of ${params.size} characters.`);
  answer.end();
}

interface DeltaRange {
  first: number;
  count: number;
  pacer: DeltaPacer;
  format: DeltaTextFormat;
  signal: AbortSignal;
}

/**
 * Write deltas `first … first + count - 1` as the pacer grants them. The writes of one tick are
 * issued in index order without awaiting each (the step keeps the order of the calls), and the
 * tick awaits them all, so a pause holds the loop and an abort rejects it. Between writes the
 * loop waits while the server asks it to (`backpressure`): what it queued is sent first, so a
 * delta never waits behind the fan-out of a whole tick.
 */
async function streamDeltas(writer: StepWriter, range: DeltaRange): Promise<void> {
  const { pacer, format, signal } = range;
  const end = range.first + range.count;
  let next = range.first;
  while (next < end) {
    signal.throwIfAborted();
    const granted = pacer.take(Math.min(MAX_DELTAS_PER_TICK, end - next));
    if (granted === 0) {
      await sleep(Math.max(1, Math.ceil(pacer.msUntilNext())), undefined, { signal });
      continue;
    }
    const writes: Promise<void>[] = [];
    try {
      for (let i = 0; i < granted; i++, next++) {
        writes.push(writer.write(format.format(next, nowMicros())));
        const backlog = writer.backpressure?.();
        if (backlog !== undefined) await backlog;
      }
    } catch (error) {
      // Aborted while waiting: the writes already issued reject too, and are handled here.
      await Promise.allSettled(writes);
      throw error;
    }
    await Promise.all(writes);
  }
}
