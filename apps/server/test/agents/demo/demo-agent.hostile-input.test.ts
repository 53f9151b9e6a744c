import type { Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { asChain, correct, runDemo } from './demo-harness.js';

/** The longest task and correction a client may send (the server's `maxTaskChars` / `maxCorrectionChars`). */
const LONGEST = 20_000;
/**
 * Reading an eighth of the text must cost at least this share of reading all of it. Linear work
 * gives a ratio of about 8; a recogniser that backtracks quadratically gives 64 (and took seconds
 * at 20,000 characters), so 24 tells them apart with room for a busy machine.
 */
const MAX_GROWTH_FOR_8X_INPUT = 24;
/** Far above what linear reading takes even on a loaded machine, far below the 2.7 s – 65 s a backtracking pattern took. */
const CEILING_MS = 2_500;

/** Text of exactly `length` characters: `head`, then `unit` repeated, then `tail`. */
function fill(length: number, unit: string, head = '', tail = ''): string {
  const body = length - head.length - tail.length;
  return head + unit.repeat(Math.ceil(body / unit.length)).slice(0, body) + tail;
}

/** Hostile shapes: long whitespace, digit and numeral runs, many operators, separators, brackets, quotes, CJK, unit names. */
const HOSTILE: ReadonlyArray<[string, (length: number) => string]> = [
  ['a number, 20,000 spaces, a number', (n) => fill(n, ' ', '1', '2')],
  ['a question padded with whitespace', (n) => fill(n, ' \t\n', 'What is', '12 + 3?')],
  ['whitespace before a word that is almost an operator', (n) => fill(n, ' ', '5', 'squares')],
  ['square root of, then whitespace', (n) => fill(n, ' ', 'What is the square root of', 'x')],
  ['a Chinese operator word between spaces', (n) => fill(n, ' ', '1加', '1')],
  ['whitespace after an operator and before "the"', (n) => fill(n, ' ', '3 + ', 'the 4')],
  ['a run of dots and spaces inside an expression', (n) => fill(n, '. ', '1 + 2', '+ 3')],
  ['one long run of digits', (n) => fill(n, '1234567890')],
  ['digits then a half hour', (n) => fill(n, '7', '', '个半小时')],
  ['many numbers', (n) => fill(n, '1 ')],
  ['many operators', (n) => fill(n, '1+')],
  ['many percentages', (n) => fill(n, '5% of ')],
  ['opening brackets', (n) => fill(n, '(')],
  ['closing brackets', (n) => fill(n, ')', '1')],
  ['nested brackets', (n) => '('.repeat(n / 2 - 1) + '12' + ')'.repeat(n / 2 - 1)],
  ['20,000 characters of Chinese', (n) => fill(n, '苹果香蕉橘子')],
  ['a run of Chinese numerals', (n) => fill(n, '三四五六七八九')],
  ['Chinese counts', (n) => fill(n, '三个')],
  ['repeated thousands separators', (n) => fill(n, '1,000')],
  ['repeated commas', (n) => fill(n, '1,')],
  ['question marks', (n) => fill(n, '?？!')],
  ['unclosed quotes', (n) => fill(n, '“')],
  ['"of" then whitespace', (n) => fill(n, ' ', '15% of', '240.')],
  ['unit names', (n) => fill(n, 'km h s ')],
  ['dates', (n) => fill(n, '2024-01-01 ')],
  ['discount words', (n) => fill(n, '打八折', '原价40元')],
  ['counts of items before one unit price and a discount', (n) => fill(n, '12 pens ', 'A pen costs $1.25 each. ', 'How much after a 15% discount?')],
  ['priced counts with discounts', (n) => fill(n, '12 pens at $1.25 each, 15% off. ')],
  ['a count and a unit price padded with whitespace before 打九折', (n) => fill(n, ' ', '铅笔每支2.5元，买8支', '打九折，一共多少钱？')],
  ['story cue words', (n) => fill(n, 'buys 3 ', 'Tom has 5 apples. ')],
  ['a question, then one request for another unit after another', (n) => fill(n, ' And in pounds?', 'A recipe needs 250 g flour for 4 people. How much for 10 people?')],
  ['a question, then a request for another unit padded with whitespace', (n) => fill(n, ' ', 'A recipe needs 250 g flour for 4 people. How much for 10 people? And in', 'pounds?')],
  ['minus signs', (n) => fill(n, '-1 ')],
  ['legs of a trip', (n) => fill(n, '120 km at 60 km/h, then ', '', 'How long does the whole trip take?')],
  ['legs of a trip in Chinese', (n) => fill(n, '再以每小时45公里行驶90公里，', '先以每小时60公里行驶120公里，', '平均速度是多少？')],
  ['a trip of two legs padded with "then"', (n) => fill(n, ' then', '120 km at 60 km/h,', ' 90 km at 45 km/h. What is the average speed?')],
];

/** The shapes that made patterns backtrack before: every kind of corrected step is tried with these. */
const WORST = new Set([
  'a number, 20,000 spaces, a number', 'whitespace before a word that is almost an operator', 'square root of, then whitespace', 'a Chinese operator word between spaces',
  'one long run of digits', 'many operators', 'closing brackets', 'a run of Chinese numerals', 'unclosed quotes', 'repeated commas',
]);
const WORST_SHAPES = HOSTILE.filter(([name]) => WORST.has(name));

async function elapsed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** The least time of a few runs at each size, interleaved, so a busy moment hits both sizes alike. */
async function costs(run: (length: number) => Promise<unknown>): Promise<{ eighth: number; full: number }> {
  await run(LONGEST / 20);
  let eighth = Infinity;
  let full = Infinity;
  for (let i = 0; i < 3; i++) {
    eighth = Math.min(eighth, await elapsed(() => run(LONGEST / 8)));
    full = Math.min(full, await elapsed(() => run(LONGEST)));
  }
  return { eighth, full };
}

function expectLinear({ eighth, full }: { eighth: number; full: number }): void {
  expect(full).toBeLessThan(CEILING_MS);
  // Below 50 ms one pause of the collector swings the ratio; a quadratic reader is far slower than that at 20,000 characters.
  if (full > 50) expect(full / eighth).toBeLessThan(MAX_GROWTH_FOR_8X_INPUT);
}

async function finalAnswer(task: string, chain: readonly Step[] = []): Promise<void> {
  const sink = await runDemo(task, chain);
  expect(sink.kinds().at(-1)).toBe('final_answer');
}

/**
 * A timing check on a machine shared with other work: a test is retried before it fails. A
 * backtracking reader fails every try (it is 10–100× over); a busy moment does not repeat three times.
 */
describe('demo agent: hostile input is read in linear time', { retry: 2 }, () => {
  it.each(HOSTILE)('answers a 20,000-character task of %s', async (_, make) => {
    expectLinear(await costs((length) => finalAnswer(make(length))));
  });

  it.each(HOSTILE)('continues after a thought corrected to %s, with that as the note too', async (_, make) => {
    const task = 'Tom has 12 apples. He eats 3 and then buys 5 more. How many apples does he have now?';
    const chain = asChain((await runDemo(task)).steps);
    expectLinear(await costs((length) => finalAnswer(task, correct(chain, 'thought', make(length), { note: make(length) }))));
  });

  it.each(WORST_SHAPES)('continues after an action corrected to %s', async (_, make) => {
    const task = 'A train travels 180 km in 2.5 hours. What is its average speed in m/s?';
    const chain = asChain((await runDemo(task)).steps);
    expectLinear(await costs((length) => finalAnswer(task, correct(chain, 'action', make(length)))));
  });

  it.each(WORST_SHAPES)('continues after an observation corrected to %s', async (_, make) => {
    const task = '一件衣服原价200元，先打八折，再减20元，现价多少元？';
    const chain = asChain((await runDemo(task)).steps);
    expectLinear(await costs((length) => finalAnswer(task, correct(chain, 'observation', make(length)))));
  });

  it.each(WORST_SHAPES)('continues after a tool call corrected to an expression of %s', async (_, make) => {
    const task = 'What is 12*(3+4)?';
    const chain = asChain((await runDemo(task)).steps);
    expectLinear(await costs((length) => finalAnswer(task, correct(chain, 'tool_call', JSON.stringify({ expression: make(length) })))));
  });
});
