import { describe, expect, it } from 'vitest';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { tokenize } from '../../../src/agents/stream-text.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import { runCorrected, runDemo } from './demo-harness.js';
import { RecordingSink } from '../../support/recording-sink.js';

const CJK = /[\u3400-\u9fff]/u;

describe('demo agent: streaming', () => {
  it('streams each step token by token, the tokens joining to the content', async () => {
    const sink = await runDemo('A train travels 180 km in 2.5 hours. What is its average speed?');
    for (const step of sink.steps) {
      expect(step.writes.join('')).toBe(step.content);
      if (step.content.includes(' ')) expect(step.writes.length).toBeGreaterThan(1);
    }
    expect(sink.last('thought')?.writes.slice(0, 2)).toEqual(['Quantities: ', 'distance ']);
  });

  it('streams Chinese one character at a time', async () => {
    const sink = await runDemo('小明有12个苹果，吃了3个，又买了5个，现在有几个？');
    const thought = sink.last('thought');
    expect(thought?.writes.slice(0, 3)).toEqual(['小', '明', '原']);
  });

  it('splits text into words with their spaces and CJK characters one by one', () => {
    expect(tokenize('I will compute 12 × 7.')).toEqual(['I ', 'will ', 'compute ', '12 ', '× ', '7.']);
    expect(tokenize('答案是84。')).toEqual(['答', '案', '是', '84', '。']);
    expect(tokenize('')).toEqual([]);
  });
});

describe('demo agent: language', () => {
  it('answers in English when the task has no CJK characters', async () => {
    const sink = await runDemo('What is 15% of 240?');
    for (const step of sink.steps) expect(step.content).not.toMatch(CJK);
  });

  it('answers in Chinese when the task contains CJK characters', async () => {
    const sink = await runDemo('240的15%是多少？');
    for (const kind of ['thought', 'action', 'final_answer'] as const) expect(sink.last(kind)?.content).toMatch(CJK);
  });
});

describe('demo agent: abort', () => {
  it('stops promptly once its signal aborts mid-step: nothing is written or started afterwards', async () => {
    const controller = new AbortController();
    let writesAtAbort = 0;
    const sink = new RecordingSink({
      signal: controller.signal,
      onWrite: (recording) => {
        if (recording.writeCount === 5) {
          writesAtAbort = recording.writeCount;
          controller.abort(new DOMException('A correction arrived.', 'AbortError'));
        }
      },
    });
    const run = createDemoAgent().run({ task: 'What is 12*(3+4)?', chain: [], options: {}, tools: createDefaultTools(), sink, signal: controller.signal });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(sink.writeCount).toBe(writesAtAbort);
    expect(sink.kinds()).toEqual(['thought']);
  });

  it('stops within the step that was streaming when the signal aborted', async () => {
    const controller = new AbortController();
    const sink = new RecordingSink({
      signal: controller.signal,
      onWrite: (recording) => {
        if (recording.steps.length === 2) controller.abort(new DOMException('Cancelled.', 'AbortError'));
      },
    });
    const run = createDemoAgent().run({ task: 'What is 12*(3+4)?', chain: [], options: {}, tools: createDefaultTools(), sink, signal: controller.signal });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(sink.kinds()).toEqual(['thought', 'action']);
    expect(sink.last('action')?.writes).toHaveLength(1);
  });

  it('does not start a step when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new DOMException('Shutting down.', 'AbortError'));
    const sink = new RecordingSink({ signal: controller.signal });
    const run = createDemoAgent().run({ task: 'What is 1+1?', chain: [], options: {}, tools: createDefaultTools(), sink, signal: controller.signal });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(sink.steps).toEqual([]);
  });
});

describe('demo agent: honest text', () => {
  const CANNED = [/based on (your|the) correction/iu, /as you (corrected|suggested)/iu, /thanks? (you )?for (the|your) correction/iu, /根据(你|您)的(更正|修改|纠正)/u, /感谢(你|您)的(更正|纠正)/u];

  it('never uses canned correction phrases, in any run or continuation', async () => {
    const runs = await Promise.all([
      runDemo('What is 12*(3+4)?'),
      runDemo('Plan a trip to Kyoto'),
      runDemo('写一首诗'),
      runCorrected('What is 12*(3+4)?', 'tool_call', () => '{"expression":"1+1"}').then((r) => r.second),
      runCorrected('What is 12*(3+4)?', 'observation', () => '= 90').then((r) => r.second),
      runCorrected('小明有12个苹果，吃了3个，又买了5个，现在有几个？', 'thought', (t) => t.replace('12个', '20个')).then((r) => r.second),
      runCorrected('小明有12个苹果，吃了3个，又买了5个，现在有几个？', 'observation', () => '= 16').then((r) => r.second),
      runCorrected('What is 15% of 240?', 'action', () => 'Compute 240 * 20% instead.').then((r) => r.second),
      runCorrected('What is 15% of 240?', 'thought', () => 'Not sure.').then((r) => r.second),
    ]);
    const texts = runs.flatMap((sink) => sink.steps.map((step) => step.content));
    expect(texts.length).toBeGreaterThan(20);
    for (const text of texts) for (const phrase of CANNED) expect(text).not.toMatch(phrase);
  });

  it('gives answers that differ when the corrected content differs (nothing is canned)', async () => {
    const a = await runCorrected('What is 12*(3+4)?', 'observation', () => '= 90');
    const b = await runCorrected('What is 12*(3+4)?', 'observation', () => '= 91');
    expect(a.second.last('final_answer')?.content).not.toBe(b.second.last('final_answer')?.content);
  });
});
