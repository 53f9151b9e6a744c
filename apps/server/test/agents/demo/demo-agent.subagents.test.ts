import fc from 'fast-check';
import type { StepKind } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { RecordingSink } from '../../support/recording-sink.js';
import { asChain, correct, extend, withMessage } from './demo-harness.js';
import { delegatingTools, runDelegating, runDemo } from './delegating-toolbox.js';

const EN = 'What is 17 * 23 + 4? Also, what is 15% of 240?';
const ZH = '17 乘以 23 加 4 是多少？另外，240 的 15% 是多少？';

describe('demo agent: a multi-part task in one batch of sub-agents', () => {
  it('splits the task, delegates each part in one batch and joins their answers', async () => {
    const { sink, executions } = await runDelegating(EN);
    expect(sink.kinds()).toEqual(['thought', 'tool_call', 'tool_call', 'observation', 'observation', 'final_answer']);
    expect(sink.steps[0]!.content).toContain('2 independent parts');
    const calls = sink.steps.filter((step) => step.kind === 'tool_call');
    expect(calls.map((step) => step.tool)).toEqual(['delegate', 'delegate']);
    expect(calls.map((step) => JSON.parse(step.content))).toEqual([
      { task: 'What is 17 * 23 + 4?', name: 'part 1' },
      { task: 'What is 15% of 240?', name: 'part 2' },
    ]);
    // Each sub-agent runs in the scope of its own call.
    expect(executions.map((run) => run.stepId)).toEqual(calls.map((step) => step.stepId));
    const observations = sink.steps.filter((step) => step.kind === 'observation');
    expect(observations.map((step) => step.tool)).toEqual(['delegate', 'delegate']);
    expect(observations[0]!.content).toContain('395');
    expect(observations[1]!.content).toContain('36');
    expect(observations[0]!.result).toMatchObject({ subagent: calls[0]!.stepId, status: 'completed' });
    const answer = sink.last('final_answer')!.content;
    expect(answer).toMatch(/part 1 \(What is 17 \* 23 \+ 4\?\): .*395/u);
    expect(answer).toMatch(/part 2 \(What is 15% of 240\?\): .*36/u);
    expect(answer.indexOf('395')).toBeLessThan(answer.indexOf('36'));
  });

  it('answers in Chinese with Chinese part names for a Chinese task', async () => {
    const { sink } = await runDelegating(ZH);
    const calls = sink.steps.filter((step) => step.kind === 'tool_call');
    expect(calls.map((step) => JSON.parse(step.content))).toEqual([
      { task: '17 乘以 23 加 4 是多少？', name: '第 1 部分' },
      { task: '240 的 15% 是多少？', name: '第 2 部分' },
    ]);
    expect(sink.steps[0]!.content).toContain('2 个互不相关的部分');
    const answer = sink.last('final_answer')!.content;
    expect(answer).toContain('第 1 部分（17 乘以 23 加 4 是多少？）');
    expect(answer).toMatch(/395[\s\S]*36/u);
  });

  it('runs the sub-agents at the same time and writes nothing while they run', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { tools, executions } = delegatingTools({ gate });
    const signal = new AbortController().signal;
    const sink = new RecordingSink({ signal });
    const run = createDemoAgent().run({ task: 'What is 2 + 3? What is 4 * 5? Also, convert 5 miles to km.', chain: [], options: {}, tools, sink, signal });
    await waitUntil(() => executions.length === 3);
    // All three sub-agents are in flight before any of them finished; the parent has written only its thought and calls.
    expect(sink.kinds()).toEqual(['thought', 'tool_call', 'tool_call', 'tool_call']);
    release();
    await run;
    expect(sink.kinds().slice(4)).toEqual(['observation', 'observation', 'observation', 'final_answer']);
    const answer = sink.last('final_answer')!.content;
    expect(answer).toMatch(/part 1 .*5[\s\S]*part 2 .*20[\s\S]*part 3 .*8\.05/u);
  });

  it('answers the parts one after another itself on a server without the delegate tool', async () => {
    const sink = await runDemo(EN);
    expect(sink.steps.some((step) => step.tool === 'delegate')).toBe(false);
    expect(sink.kinds()).toEqual(['thought', 'action', 'tool_call', 'observation', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(sink.steps[0]!.content).toContain('one after another');
    expect(sink.steps.filter((step) => step.kind === 'tool_call').map((step) => step.content)).toEqual([
      JSON.stringify({ expression: '17 * 23 + 4' }),
      JSON.stringify({ expression: '240 * 15%' }),
    ]);
    expect(sink.last('final_answer')!.content).toMatch(/part 1 \(What is 17 \* 23 \+ 4\?\): .*395[\s\S]*part 2 \(What is 15% of 240\?\): .*36/u);
  });

  it('answers Chinese parts one after another, a part of several steps from its own results', async () => {
    const sink = await runDemo(ZH);
    // Part 1 is two calls (17 × 23, then + 4); part 2 starts afresh from its own numbers.
    expect(sink.steps.filter((step) => step.kind === 'tool_call').map((step) => step.content)).toEqual([
      JSON.stringify({ expression: '17 * 23' }),
      JSON.stringify({ expression: '391 + 4' }),
      JSON.stringify({ expression: '240 * 15%' }),
    ]);
    expect(sink.last('final_answer')!.content).toMatch(/第 1 部分（17 乘以 23 加 4 是多少？）：.*395[\s\S]*第 2 部分（240 的 15% 是多少？）：.*36/u);
  });

  it('answers each part from the chain after a correction of one of its calls, without sub-agents', async () => {
    const first = await runDemo(EN);
    const chain = correct(asChain(first.steps), 'tool_call', JSON.stringify({ expression: '17 * 23 + 5' }));
    const sink = await runDemo(EN, chain);
    expect(sink.last('final_answer')!.content).toMatch(/part 1 .*396[\s\S]*part 2 .*36/u);
    expect(sink.last('final_answer')!.content).not.toContain('395');
  });

  it('answers the parts with the numbers a corrected thought changes, without sub-agents', async () => {
    const first = await runDemo(EN);
    const chain = correct(asChain(first.steps), 'thought', 'Use 20 instead of 17.');
    const sink = await runDemo(EN, chain);
    expect(sink.steps.filter((step) => step.kind === 'tool_call').map((step) => step.content)).toEqual([
      JSON.stringify({ expression: '20 * 23 + 4' }),
      JSON.stringify({ expression: '240 * 15%' }),
    ]);
    expect(sink.last('final_answer')!.content).toMatch(/464[\s\S]*36/u);
  });

  it('goes on part after part with a chain begun without sub-agents, once the delegate tool is there', async () => {
    const first = await runDemo(EN);
    const chain = correct(asChain(first.steps), 'tool_call', JSON.stringify({ expression: '17 * 23 + 5' }));
    const { sink, executions } = await runDelegating(EN, chain);
    expect(executions).toEqual([]);
    expect(sink.last('final_answer')!.content).toMatch(/396[\s\S]*36/u);
  });

  it('answers a single part normally as a sub-agent: it never splits again', async () => {
    const { sink, executions } = await runDelegating('What is 17 * 23 + 4?');
    expect(executions).toEqual([]);
    expect(sink.kinds()).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(sink.last('final_answer')!.content).toContain('395');
  });

  it('stops without writing observations when the run is aborted while its batch runs', async () => {
    const controller = new AbortController();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { tools, executions } = delegatingTools({ gate });
    const sink = new RecordingSink({ signal: controller.signal });
    const run = createDemoAgent().run({ task: EN, chain: [], options: {}, tools, sink, signal: controller.signal });
    await waitUntil(() => executions.length === 2);
    controller.abort(new Error('The run was aborted: the step was corrected.'));
    release();
    await expect(run).rejects.toThrow('corrected');
    expect(sink.kinds()).toEqual(['thought', 'tool_call', 'tool_call']);
  });
});

describe('demo agent: regenerating a delegated turn', () => {
  async function firstRun(task = EN) {
    const { sink } = await runDelegating(task);
    return asChain(sink.steps);
  }

  it('runs every call of a trailing batch without observations, taking stored outcomes as they come', async () => {
    const chain = (await firstRun()).slice(0, 3);
    const stored = new Map([[chain[2]!.stepId, '15% of 240 is 36.']]);
    const { sink, executions } = await runDelegating(EN, chain, { stored });
    expect(executions.map((run) => [run.stepId, run.sink !== undefined])).toEqual([
      [chain[1]!.stepId, true],
      [chain[2]!.stepId, false],
    ]);
    expect(sink.kinds()).toEqual(['observation', 'observation', 'final_answer']);
    expect(sink.last('final_answer')!.content).toMatch(/395[\s\S]*36/u);
  });

  it('uses the observations already on the chain and runs only the calls without one', async () => {
    const full = await firstRun();
    const chain = correct(full.slice(0, 4), 'observation', '17 × 23 + 4 = 400 (checked by hand)');
    const { sink, executions } = await runDelegating(EN, chain);
    expect(executions.map((run) => run.stepId)).toEqual([full[2]!.stepId]);
    expect(sink.kinds()).toEqual(['observation', 'final_answer']);
    const answer = sink.last('final_answer')!.content;
    expect(answer).toContain('400 (checked by hand)');
    expect(answer).toContain('36');
  });

  it('runs a corrected delegate call with its corrected task, and delegates the parts after it again', async () => {
    const full = await firstRun();
    const chain = correct(full, 'tool_call', JSON.stringify({ task: 'What is 17 * 23 + 5?', name: 'part 1' }));
    const { sink, executions } = await runDelegating(EN, chain);
    expect(sink.kinds()).toEqual(['tool_call', 'observation', 'observation', 'final_answer']);
    expect(JSON.parse(sink.steps[0]!.content)).toEqual({ task: 'What is 15% of 240?', name: 'part 2' });
    expect(executions.map((run) => run.input.task)).toEqual(['What is 17 * 23 + 5?', 'What is 15% of 240?']);
    const answer = sink.last('final_answer')!.content;
    expect(answer).toMatch(/17 \* 23 \+ 5.*396[\s\S]*36/u);
  });

  it('runs the batch again when its last call is corrected', async () => {
    const full = await firstRun(ZH);
    const chain = correct(full, 'tool_call', JSON.stringify({ task: '240 的 10% 是多少？', name: '第 2 部分' }), { nth: 1 });
    const { sink, executions } = await runDelegating(ZH, chain);
    expect(executions.map((run) => run.input.task)).toEqual(['17 乘以 23 加 4 是多少？', '240 的 10% 是多少？']);
    expect(sink.kinds()).toEqual(['observation', 'observation', 'final_answer']);
    expect(sink.last('final_answer')!.content).toMatch(/395[\s\S]*240 的 10%[\s\S]*24/u);
  });

  it('answers a delegate call whose corrected content is not a delegate input with an error observation', async () => {
    const full = await firstRun();
    const chain = correct(full, 'tool_call', 'not json', { nth: 1 });
    const { sink, executions } = await runDelegating(EN, chain);
    expect(executions).toHaveLength(1);
    expect(sink.kinds()).toEqual(['observation', 'observation', 'final_answer']);
    expect(sink.steps[1]!.content).toMatch(/^Error: /u);
    expect(sink.steps[1]!.result).toMatchObject({ error: expect.any(String) });
    expect(sink.last('final_answer')!.content).toContain('395');
  });

  it('delegates the parts a corrected split thought lists', async () => {
    const full = await firstRun();
    const chain = correct(full, 'thought', 'Two parts:\n1. What is 17 * 23 + 6?\n2. Convert 5 miles to km.');
    const { sink, executions } = await runDelegating(EN, chain);
    expect(executions.map((run) => run.input.task)).toEqual(['What is 17 * 23 + 6?', 'Convert 5 miles to km.']);
    expect(sink.last('final_answer')!.content).toMatch(/397[\s\S]*8\.05/u);
  });

  it('answers itself when the split thought is rewritten into one calculation', async () => {
    const full = await firstRun();
    const chain = correct(full, 'thought', 'I only need 17 * 23 + 4.');
    const { sink, executions } = await runDelegating(EN, chain);
    expect(executions).toEqual([]);
    expect(sink.steps.find((step) => step.kind === 'tool_call')).toMatchObject({ tool: 'calculator' });
    expect(sink.last('final_answer')!.content).toContain('395');
  });

  it('keeps a corrected joined answer as it is', async () => {
    const full = await firstRun();
    const chain = correct(full, 'final_answer', '395 and 36.');
    const { sink, executions } = await runDelegating(EN, chain);
    expect(executions).toEqual([]);
    expect(sink.steps).toEqual([]);
  });
});

describe('demo agent: any correction of a delegated turn', () => {
  it('reaches a joined final answer after any correction of any step', async () => {
    const firstRuns = await Promise.all([EN, ZH].map(async (task) => ({ task, chain: asChain((await runDelegating(task)).sink.steps) })));
    const kinds: StepKind[] = ['thought', 'tool_call', 'observation'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...firstRuns),
        fc.constantFrom(...kinds),
        fc.constantFrom(0, 1),
        fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.json(), fc.constantFrom('{"task":"What is 2 + 2?"}', '{"task":""}', '1. What is 1 + 1?\n2. 3 乘以 4 是多少？')),
        async ({ task, chain }, kind, nth, content) => {
          if (chain.filter((step) => step.kind === kind).length <= nth) return;
          const sink = (await runDelegating(task, correct(chain, kind, content, { nth }))).sink;
          expect(sink.kinds().at(-1)).toBe('final_answer');
          expect(sink.steps.every((step) => step.ended)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reaches a final answer after any correction of any step of a task answered part after part', async () => {
    const firstRuns = await Promise.all([EN, ZH, 'Convert 5 miles to km and what is 3 + 4?'].map(async (task) => ({ task, chain: asChain((await runDemo(task)).steps) })));
    const kinds: StepKind[] = ['thought', 'action', 'tool_call', 'observation'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...firstRuns),
        fc.constantFrom(...kinds),
        fc.constantFrom(0, 1, 2),
        fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.json(), fc.constantFrom('{"expression":"2 + 2"}', 'use 20 instead of 17', '把 240 改成 300')),
        async ({ task, chain }, kind, nth, content) => {
          if (chain.filter((step) => step.kind === kind).length <= nth) return;
          const sink = await runDemo(task, correct(chain, kind, content, { nth }));
          expect(sink.kinds().at(-1)).toBe('final_answer');
        },
      ),
      { numRuns: 80 },
    );
  });

  it('takes a follow-up after the joined answer as a new turn', async () => {
    const first = await runDelegating(EN);
    const chain = withMessage(asChain(first.sink.steps), 'What is 2 + 2?');
    const { sink } = await runDelegating(EN, chain);
    expect(sink.kinds().at(-1)).toBe('final_answer');
    expect(sink.last('final_answer')!.content).toContain('4');
    expect(extend(chain, sink.steps).at(-1)!.kind).toBe('final_answer');
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
