import { describe, expect, it } from 'vitest';
import { createFirehoseAgent } from '../../../src/agents/firehose/firehose-agent.js';
import { FirehoseParamsError } from '../../../src/agents/firehose/firehose-params.js';
import { readDeltaStamp } from '../../../src/agents/firehose/firehose-text.js';
import { chainStep, recordingRun } from './recording-run.js';

const agent = createFirehoseAgent();

function stamps(texts: string[]) {
  return texts.map((text) => {
    const stamp = readDeltaStamp(text);
    if (!stamp) throw new Error(`no stamp in ${text}`);
    return stamp;
  });
}

describe('firehose agent', () => {
  it('streams every delta in index order, cut into steps, then a final answer', async () => {
    const { sink, context } = recordingRun('firehose rate=max count=1300 step=500 size=40');
    await agent.run(context);

    const starts = sink.starts();
    expect(starts.map((start) => start.kind)).toEqual(['thought', 'thought', 'thought', 'final_answer']);
    const thoughtIds = starts.slice(0, 3).map((start) => start.stepId);
    const deltas = sink.writes().filter((write) => thoughtIds.includes(write.stepId));
    expect(deltas.map((write) => stamps([write.text])[0]?.index)).toEqual([...Array(1300).keys()]);
    expect(deltas.every((write) => write.text.length === 40)).toBe(true);
    expect(thoughtIds.map((id) => deltas.filter((write) => write.stepId === id).length)).toEqual([500, 500, 300]);
  });

  it('ends each step before it starts the next one', async () => {
    const { sink, context } = recordingRun('firehose rate=max count=30 step=10');
    await agent.run(context);

    const open = new Set<string>();
    for (const event of sink.events) {
      if (event.type === 'start') {
        expect(open.size).toBe(0);
        open.add(event.stepId);
      } else if (event.type === 'write') {
        expect(open.has(event.stepId)).toBe(true);
      } else if (event.type === 'end') {
        open.delete(event.stepId);
      }
    }
    expect(open.size).toBe(0);
  });

  it('stamps deltas with a clock that never goes back', async () => {
    const { sink, context } = recordingRun('firehose rate=max count=2000');
    await agent.run(context);

    const micros = stamps(sink.writes().slice(0, 2000).map((write) => write.text)).map((stamp) => stamp.micros);
    expect(micros.every((value, i) => i === 0 || value >= (micros[i - 1] ?? 0))).toBe(true);
  });

  it('keeps a paced stream in order across timer ticks', async () => {
    const { sink, context } = recordingRun('firehose rate=20000 count=200 step=1000');
    await agent.run(context);

    const indices = stamps(sink.writes().slice(0, 200).map((write) => write.text)).map((stamp) => stamp.index);
    expect(indices).toEqual([...Array(200).keys()]);
  });

  it('streams only the steps left after a corrected chain, continuing the indices', async () => {
    const chain = [chainStep('s0', 'thought', 0), chainStep('s1', 'thought', 1, 'corrected')];
    const { sink, context } = recordingRun('firehose rate=max count=35 step=10', chain);
    await agent.run(context);

    expect(sink.starts().map((start) => start.kind)).toEqual(['thought', 'thought', 'final_answer']);
    const indices = stamps(sink.writes().slice(0, 15).map((write) => write.text)).map((stamp) => stamp.index);
    expect(indices).toEqual([...Array(15).keys()].map((i) => 20 + i));
  });

  it('goes straight to the final answer when every step is already on the chain', async () => {
    const chain = [chainStep('s0', 'thought', 0, 'corrected')];
    const { sink, context } = recordingRun('firehose rate=max count=10 step=10', chain);
    await agent.run(context);

    expect(sink.starts().map((start) => start.kind)).toEqual(['final_answer']);
    expect(sink.writes()).toHaveLength(1);
  });

  it('streams nothing when the chain ends in a corrected final answer', async () => {
    const chain = [chainStep('s0', 'thought', 0), chainStep('s1', 'final_answer', 1, 'corrected')];
    const { sink, context } = recordingRun('firehose rate=max count=10 step=10', chain);
    await agent.run(context);

    expect(sink.events).toEqual([]);
  });

  it('stops writing once its run is aborted', async () => {
    const { sink, context, controller } = recordingRun('firehose rate=1000 count=100000');
    const run = agent.run(context);
    const aborted = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (sink.writes().length >= 20) {
          clearInterval(check);
          controller.abort();
          resolve();
        }
      }, 1);
    });
    await aborted;
    const writtenAtAbort = sink.writes().length;

    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(sink.writes().length).toBe(writtenAtAbort);
    expect(sink.starts().map((start) => start.kind)).toEqual(['thought']);
  });

  it('waits out its start delay only for a fresh session, and an abort cuts the wait short', async () => {
    const { sink, context, controller } = recordingRun('firehose rate=max count=5 delay=60000');
    const run = agent.run(context);
    setImmediate(() => controller.abort());

    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(sink.events).toEqual([]);

    const resumed = recordingRun('firehose rate=max count=5 step=5 delay=60000', [chainStep('s0', 'thought', 0, 'corrected')]);
    await agent.run(resumed.context);
    expect(resumed.sink.starts().map((start) => start.kind)).toEqual(['final_answer']);
  });

  it('writes its lead steps at once, then waits out the delay before the paced stream, in the kinds given', async () => {
    const { sink, context } = recordingRun('firehose rate=1000 count=4 step=2 lead=3 delay=200 kinds=thought,action');
    const started = performance.now();
    await agent.run(context);

    const starts = sink.starts();
    expect(starts.map((start) => start.kind)).toEqual(['thought', 'action', 'thought', 'action', 'thought', 'final_answer']);
    const deltas = sink.writes().filter((write) => write.stepId !== starts.at(-1)?.stepId);
    expect(deltas.map((write) => stamps([write.text])[0]?.index)).toEqual([...Array(10).keys()]);
    // The paced part (after the lead) waited out the delay; the lead did not wait for anything.
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('continues the kinds and the lead after a correction', async () => {
    const { sink, context } = recordingRun('firehose rate=max count=2 step=2 lead=2 kinds=thought,action', [chainStep('s0', 'thought', 0, 'corrected')]);
    await agent.run(context);
    expect(sink.starts().map((start) => start.kind)).toEqual(['action', 'thought', 'final_answer']);
  });

  it('fails the run with a parameter error for a bad task', async () => {
    const { sink, context } = recordingRun('firehose rate=-5');
    await expect(agent.run(context)).rejects.toThrow(FirehoseParamsError);
    expect(sink.events).toEqual([]);
  });
});
