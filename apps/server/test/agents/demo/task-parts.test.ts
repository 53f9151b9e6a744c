import { describe, expect, it } from 'vitest';
import { languageOf } from '../../../src/agents/demo/language.js';
import { MAX_TASK_PARTS, splitTask } from '../../../src/agents/demo/task-parts.js';

function split(task: string): string[] | undefined {
  return splitTask(task, languageOf(task));
}

describe('splitTask: independent parts of a task', () => {
  it.each([
    ['What is 17 * 23 + 4? Also, what is 15% of 240?', ['What is 17 * 23 + 4?', 'What is 15% of 240?']],
    ['What is 17 * 23 + 4 and what is 15% of 240?', ['What is 17 * 23 + 4?', 'What is 15% of 240?']],
    ['What is 17 * 23 + 4, and also what is 15% of 240?', ['What is 17 * 23 + 4?', 'What is 15% of 240?']],
    ['Convert 5 miles to km and what is 3 + 4?', ['Convert 5 miles to km.', 'What is 3 + 4?']],
    ['What is 3 + 4? and what is the sum of 5 and 6?', ['What is 3 + 4?', 'What is the sum of 5 and 6?']],
    ['How long does it take to drive 120 km at 60 km/h? Plus, what is 15% of 240?', ['How long does it take to drive 120 km at 60 km/h?', 'What is 15% of 240?']],
  ])('splits the English task %j into its questions', (task, parts) => {
    expect(split(task)).toEqual(parts);
  });

  it.each([
    ['17 乘以 23 加 4 是多少？另外，240 的 15% 是多少？', ['17 乘以 23 加 4 是多少？', '240 的 15% 是多少？']],
    ['17 乘以 23 加 4 是多少，还有 240 的 15% 是多少？', ['17 乘以 23 加 4 是多少？', '240 的 15% 是多少？']],
    ['17 乘以 23 加 4 是多少以及 240 的 15% 是多少？', ['17 乘以 23 加 4 是多少？', '240 的 15% 是多少？']],
    ['17 乘以 23 加 4 是多少？并且把 5 英里换算成公里。', ['17 乘以 23 加 4 是多少？', '把 5 英里换算成公里。']],
    ['240 的 15% 是多少？和 17 乘以 23 是多少？', ['240 的 15% 是多少？', '17 乘以 23 是多少？']],
  ])('splits the Chinese task %j into its questions', (task, parts) => {
    expect(split(task)).toEqual(parts);
  });

  it('splits three or more parts, in order', () => {
    expect(split('What is 2 + 3? What is 4 * 5? Also, convert 5 miles to km.')).toEqual(['What is 2 + 3?', 'What is 4 * 5?', 'Convert 5 miles to km.']);
    expect(split('2 加 3 是多少？另外，4 乘以 5 是多少？还有，240 的 15% 是多少？')).toEqual(['2 加 3 是多少？', '4 乘以 5 是多少？', '240 的 15% 是多少？']);
  });

  it.each([
    ['a single question', 'What is 17 * 23 + 4?'],
    ['"and" between two numbers', 'What is the sum of 3 and 4?'],
    ['a calculation continued with "and then"', 'What is 17 * 23, and then add 4?'],
    ['a second sentence that builds on the first', 'What is 17 * 23? Then add 4.'],
    ['a second sentence that refers to the first result', 'What is 12 * 7? Divide it by 2.'],
    ['a story told over several sentences', 'Tom has 5 apples. He buys 3 more. How many apples does he have?'],
    ['a question after the facts it needs', 'A train travels 120 km at 60 km/h. How long does the trip take?'],
    ['a second question about the first one\'s answer', 'What is 17 * 23 and what is that plus 4?'],
    ['a second question about the result', 'What is 17 * 23? And what is the result times 2?'],
    ['a question whose second half the agent cannot answer', 'What is 3 + 4? Also, write me a poem.'],
    ['和 between two numbers', '3 和 4 的和是多少？'],
    ['a Chinese follow-up that builds on the result', '17 乘以 23 是多少？然后再加 4。'],
    ['a Chinese follow-up on the answer', '240 的 15% 是多少？另外，结果的一半是多少？'],
    ['a Chinese story', '小明有 5 个苹果。他又买了 3 个。他现在有几个苹果？'],
  ])('keeps %s as one task', (_what, task) => {
    expect(split(task)).toBeUndefined();
  });

  it(`keeps a task of more than ${MAX_TASK_PARTS} questions as one`, () => {
    const many = Array.from({ length: MAX_TASK_PARTS + 1 }, (_, i) => `What is ${i} + 1?`).join(' ');
    expect(split(many)).toBeUndefined();
    const most = Array.from({ length: MAX_TASK_PARTS }, (_, i) => `What is ${i} + 1?`).join(' ');
    expect(split(most)).toHaveLength(MAX_TASK_PARTS);
  });

  it('splits a part only once: each part alone is one task', () => {
    for (const task of ['What is 17 * 23 + 4? Also, what is 15% of 240?', '17 乘以 23 加 4 是多少？另外，240 的 15% 是多少？']) {
      for (const part of split(task)!) expect(split(part)).toBeUndefined();
    }
  });

  it('reads the longest hostile text a task may be', () => {
    const n = 20_000;
    expect(split('What is 1 + 1' + ' '.repeat(n / 2) + 'and' + ' '.repeat(n / 2) + 'what is 2 + 2')).toEqual(['What is 1 + 1?', 'What is 2 + 2?']);
    const hostile = [
      '1 +' + ', and'.repeat(n / 5),
      '?'.repeat(n),
      '是多少，'.repeat(n / 4),
      ','.repeat(n),
      '1. '.repeat(n / 3),
    ];
    for (const text of hostile) expect(split(text)).toBeUndefined();
  });
});
