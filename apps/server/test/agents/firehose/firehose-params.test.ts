import { describe, expect, it } from 'vitest';
import {
  FIREHOSE_DEFAULTS,
  FirehoseParamsError,
  formatFirehoseTask,
  parseFirehoseTask,
} from '../../../src/agents/firehose/firehose-params.js';
import { DeltaTextFormat, readDeltaStamp } from '../../../src/agents/firehose/firehose-text.js';

describe('parseFirehoseTask', () => {
  it('reads rate, duration and size from the task text', () => {
    expect(parseFirehoseTask('firehose rate=20000 duration=5000 size=32')).toEqual({
      rate: 20_000,
      count: 100_000,
      size: 32,
      perStep: FIREHOSE_DEFAULTS.perStep,
      delayMs: 0,
      leadSteps: 0,
      kinds: ['thought'],
    });
  });

  it('lets count win over duration and reads step and delay', () => {
    expect(parseFirehoseTask('firehose rate=50 duration=9000 count=7 step=3 delay=250 size=64')).toEqual({
      rate: 50,
      count: 7,
      size: 64,
      perStep: 3,
      delayMs: 250,
      leadSteps: 0,
      kinds: ['thought'],
    });
  });

  it('accepts the parameters without the leading word and with extra spaces', () => {
    expect(parseFirehoseTask('  count=10   rate=max ')).toMatchObject({ rate: Infinity, count: 10 });
  });

  it('uses the defaults for an empty parameter list', () => {
    expect(parseFirehoseTask('firehose')).toEqual({
      rate: FIREHOSE_DEFAULTS.rate,
      count: (FIREHOSE_DEFAULTS.rate * FIREHOSE_DEFAULTS.durationMs) / 1_000,
      size: FIREHOSE_DEFAULTS.size,
      perStep: FIREHOSE_DEFAULTS.perStep,
      delayMs: FIREHOSE_DEFAULTS.delayMs,
      leadSteps: 0,
      kinds: ['thought'],
    });
  });

  it('reads a lead of unpaced steps and the kinds the steps take in turn', () => {
    expect(parseFirehoseTask('firehose rate=1000 count=50 step=10 lead=1500 kinds=thought,action')).toMatchObject({
      count: 50,
      perStep: 10,
      leadSteps: 1_500,
      kinds: ['thought', 'action'],
    });
  });

  it.each([
    ['firehose speed=10', /unknown parameter "speed"/],
    ['firehose rate=10 rate=20', /"rate" is given twice/],
    ['firehose rate=fast', /rate must be a whole number from 1 to .* or "max", got "fast"/],
    ['firehose rate=0', /rate must be a whole number/],
    ['firehose size=3', /size must be a whole number from 8/],
    ['firehose count=1.5', /count must be a whole number/],
    ['firehose rate=max', /rate=max needs count=N/],
    ['firehose rate=10000000 duration=3600000', /over the 50000000 limit/],
    ['firehose hello', /expected key=value words/],
    ['firehose kinds=thought,tool_call', /kinds must be a comma-separated list of thought, action, observation, got "thought,tool_call"/],
    ['firehose lead=-1', /lead must be a whole number from 0/],
  ])('refuses %j with a message naming the problem', (task, message) => {
    expect(() => parseFirehoseTask(task)).toThrow(FirehoseParamsError);
    expect(() => parseFirehoseTask(task)).toThrow(message);
  });

  it('round-trips the task text the benchmark builds', () => {
    const task = formatFirehoseTask({ rate: Infinity, count: 100_000, size: 48, perStep: 500, delayMs: 10 });
    expect(task).toBe('firehose rate=max count=100000 size=48 step=500 delay=10');
    expect(parseFirehoseTask(task)).toEqual({ rate: Infinity, count: 100_000, size: 48, perStep: 500, delayMs: 10, leadSteps: 0, kinds: ['thought'] });
    const browser = formatFirehoseTask({ rate: 1_000, count: 5_000, perStep: 10, delayMs: 500, leadSteps: 1_500, kinds: ['thought', 'action'] });
    expect(browser).toBe('firehose rate=1000 count=5000 step=10 delay=500 lead=1500 kinds=thought,action');
    expect(parseFirehoseTask(browser)).toMatchObject({ leadSteps: 1_500, kinds: ['thought', 'action'] });
  });
});

describe('DeltaTextFormat', () => {
  it('pads a delta to exactly the requested size and reads its stamp back', () => {
    const text = new DeltaTextFormat(40).format(42, 123_456_789);
    expect(text).toHaveLength(40);
    expect(readDeltaStamp(text)).toEqual({ micros: 123_456_789, index: 42 });
  });

  it('keeps the whole stamp when the size is smaller than it', () => {
    const text = new DeltaTextFormat(8).format(7, 987_654_321_000);
    expect(readDeltaStamp(text)).toEqual({ micros: 987_654_321_000, index: 7 });
  });

  it('reads the stamp out of a whole serialised step.delta frame', () => {
    const text = new DeltaTextFormat(32).format(3, 55);
    const frame = JSON.stringify({ type: 'step.delta', sessionId: 'a', seq: 9, at: 'now', stepId: 'b', text });
    expect(readDeltaStamp(frame)).toEqual({ micros: 55, index: 3 });
  });

  it('finds no stamp in text without one', () => {
    expect(readDeltaStamp('{"type":"session.status","status":"running"}')).toBeUndefined();
    expect(readDeltaStamp('@Tabc#1')).toBeUndefined();
  });
});
