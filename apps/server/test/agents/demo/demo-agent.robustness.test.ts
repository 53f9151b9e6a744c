import fc from 'fast-check';
import type { StepKind } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { asChain, correct, runDemo } from './demo-harness.js';

/** Text that looks like problems: digits, operators, units, currency, Chinese, and noise. */
const problemLike = fc
  .array(
    fc.oneof(
      fc.constantFrom('12', '3.5', '0', '-4', '1e400', '２４０', '十二', '七五', '15%', '$40', '40元', '(', ')', '+', '−', '×', '÷', '^', '/', '*', '%', '='),
      fc.constantFrom(' km', ' hours', ' 小时', '公里', ' per ', '每', ' of ', '的', ' off', '打八折', ' each', ' total', '一共', '平均', ' average', ' more', '吃了', ' mph', ' in ', ' °F', ' to '),
      fc.constantFrom(' ', '，', '。', '?', '？', '\n', '2024-01-01', '2024-13-45'),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(''));

describe('demo agent: any input', () => {
  it('reaches a final answer for any task without throwing', async () => {
    await fc.assert(
      fc.asyncProperty(problemLike, async (task) => {
        const sink = await runDemo(task);
        expect(sink.kinds().at(-1)).toBe('final_answer');
        expect(sink.steps.every((step) => step.ended)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('continues to a final answer after any correction of any step', async () => {
    const tasks = ['What is 12*(3+4)?', 'A train travels 180 km in 2.5 hours. What is its average speed in m/s?', '小明有12个苹果，吃了3个，又买了5个，现在有几个？', 'Plan a trip to Kyoto'];
    const firstRuns = await Promise.all(tasks.map(async (task) => ({ task, chain: asChain((await runDemo(task)).steps) })));
    const kinds: StepKind[] = ['thought', 'action', 'tool_call', 'observation'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...firstRuns),
        fc.constantFrom(...kinds),
        fc.oneof(problemLike, fc.json()),
        fc.option(problemLike, { nil: undefined }),
        async ({ task, chain }, kind, content, note) => {
          if (!chain.some((step) => step.kind === kind) || content.length === 0) return;
          const corrected = correct(chain, kind, content, note === undefined ? {} : { note });
          const sink = await runDemo(task, corrected);
          expect(sink.kinds().at(-1)).toBe('final_answer');
        },
      ),
      { numRuns: 150 },
    );
  });
});
