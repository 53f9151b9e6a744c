import { describe, expect, it } from 'vitest';
import type { RecordingSink } from '../../support/recording-sink.js';
import { asChain, converse, refusedAt, runCorrected, runDemo, withMessage } from './demo-harness.js';

// Issue #30: the demo agent answered part of "How much for 10 people, and what is that in
// kilograms?" and did not understand a newcomer's follow-ups ("Now for 25 people", "What is that
// in kilograms?") or a steer ("请用千米每小时回答"). Each example runs the real agent loop with the
// real tools; the chain's visible steps and the final answer are asserted.

const RECIPE = 'A recipe needs 250 g flour for 4 people. How much for 10 people?';
const RECIPE_ZH = '4个人需要250克面粉，10个人需要多少克？';
const SPEED = 'A car travels 150 km in 2 hours. What is its speed?';
const SPEED_IN_MS = 'A car travels 150 km in 2 hours. What is its average speed in m/s?';
const SPEED_ZH_IN_MS = '一辆车2小时行驶150千米，速度是多少米每秒？';

const PROPORTION_STEPS = ['thought', 'action', 'tool_call', 'observation', 'action', 'tool_call', 'observation'];
const CONVERSION_STEPS = ['thought', 'action', 'tool_call', 'observation', 'final_answer'];

function toolCalls(sink: RecordingSink): Array<{ tool: string | undefined; input: unknown }> {
  return sink.steps.filter((step) => step.kind === 'tool_call').map((step) => ({ tool: step.tool, input: JSON.parse(step.content) }));
}

function answerOf(sink: RecordingSink): string {
  return sink.last('final_answer')?.content ?? '';
}

function thoughtOf(sink: RecordingSink): string {
  return sink.last('thought')?.content ?? '';
}

const FLOUR_CALLS = [
  { tool: 'calculator', input: { expression: '250 / 4' } },
  { tool: 'calculator', input: { expression: '62.5 * 10' } },
];

async function followUp(task: string, message: string): Promise<RecordingSink> {
  const { turns } = await converse(task, [message]);
  return turns[1]!;
}

describe('demo agent answers every part of a question', () => {
  it.each([
    [
      'A recipe needs 250 g flour for 4 people. How much for 10 people, and what is that in kilograms?',
      [{ tool: 'unit_converter', input: { value: 625, from: 'g', to: 'kg' } }],
      'For 10 people you need 625 grams, which is 0.625 kilograms.',
    ],
    [
      'A recipe needs 250 g flour for 4 people. How much for 10 people? And in pounds?',
      [{ tool: 'unit_converter', input: { value: 625, from: 'g', to: 'lb' } }],
      'For 10 people you need 625 grams, which is about 1.38 pounds.',
    ],
    [
      'A recipe needs 250 g flour for 4 people. How much for 10 people, and what is that in kilograms? And in pounds?',
      [
        { tool: 'unit_converter', input: { value: 625, from: 'g', to: 'kg' } },
        { tool: 'unit_converter', input: { value: 625, from: 'g', to: 'lb' } },
      ],
      'For 10 people you need 625 grams, which is 0.625 kilograms and about 1.38 pounds.',
    ],
    [
      '4个人需要250克面粉，10个人需要多少？换算成千克是多少？',
      [{ tool: 'unit_converter', input: { value: 625, from: 'g', to: 'kg' } }],
      '10个人需要625克，也就是0.625公斤。',
    ],
  ])('"%s": each part has its own tool steps and the answer states every part', async (task, conversions, answer) => {
    const run = await runDemo(task);
    const convertSteps = conversions.flatMap(() => ['action', 'tool_call', 'observation']);
    expect(run.kinds()).toEqual([...PROPORTION_STEPS, ...convertSteps, 'final_answer']);
    expect(toolCalls(run)).toEqual([...FLOUR_CALLS, ...conversions]);
    expect(answerOf(run)).toBe(answer);
  });

  it.each([
    ['4个人需要250克面粉，10个人需要多少千克？', '题目要的单位是公斤。', '10个人需要0.625公斤。'],
    ['A recipe needs 250 g flour for 4 people. How many kilograms for 10 people?', 'The question wants it in kilograms.', 'For 10 people you need 0.625 kilograms.'],
  ])('"%s": a proportion asked in another unit is converted into it', async (task, thought, answer) => {
    const run = await runDemo(task);
    expect(thoughtOf(run)).toContain(thought);
    expect(toolCalls(run)).toEqual([...FLOUR_CALLS, { tool: 'unit_converter', input: { value: 625, from: 'g', to: 'kg' } }]);
    expect(answerOf(run)).toBe(answer);
  });

  it('says in its thought that it will convert the result, and announces the conversion before making it', async () => {
    const run = await runDemo('A recipe needs 250 g flour for 4 people. How much for 10 people, and what is that in kilograms?');
    expect(thoughtOf(run)).toContain('You also asked for it in kilograms');
    expect(run.steps.filter((step) => step.kind === 'action').at(-1)?.content).toBe("Next, I'll convert 625 g to kg with the unit converter.");
    expect(run.last('observation')?.content).toBe('625 g = 0.625 kg');
  });

  it('gives a speed and the same speed in the other unit asked for', async () => {
    const run = await runDemo('A car travels 150 km in 2 hours. What is its speed? And in miles per hour?');
    expect(toolCalls(run)).toEqual([
      { tool: 'calculator', input: { expression: '150 / 2' } },
      { tool: 'unit_converter', input: { value: 75, from: 'km/h', to: 'mph' } },
    ]);
    expect(answerOf(run)).toBe('The average speed is 75 km/h, which is about 46.6 mph.');
  });

  it.each([
    [
      'A recipe needs 250 g flour for 4 people. How much for 10 people, and what is that in furlongs?',
      'For 10 people you need 625 grams. I could not work out "What is that in furlongs?": I don\'t know the unit "furlongs".',
    ],
    [
      'A recipe needs 250 g flour for 4 people. How much for 10 people? And in km/h?',
      'For 10 people you need 625 grams. I could not work out "In km/h?": the result is a mass in grams, and kilometres per hour measure speed.',
    ],
    ['What is 17 * 23? And in pounds?', '17 × 23 = 391, so the answer is 391. I could not work out "In pounds?": the result has no unit to convert into pounds.'],
    [
      '4个人需要250克面粉，10个人需要多少？换算成公里是多少？',
      '10个人需要625克。我没能算出“换算成公里是多少？”：结果是以克为单位的质量，而公里是长度单位。',
    ],
  ])('"%s": answers what it can and names the part it could not work out', async (task, answer) => {
    const run = await runDemo(task);
    expect(toolCalls(run).every((call) => call.tool === 'calculator')).toBe(true);
    expect(answerOf(run)).toBe(answer);
  });

  it('keeps every part when the user corrects a number in the thought', async () => {
    const task = 'A recipe needs 250 g flour for 4 people. How much for 10 people, and what is that in kilograms?';
    const { second } = await runCorrected(task, 'thought', (thought) => thought.replace('amount for 10 people', 'amount for 12 people'));
    expect(toolCalls(second)).toEqual([
      { tool: 'calculator', input: { expression: '250 / 4' } },
      { tool: 'calculator', input: { expression: '62.5 * 12' } },
      { tool: 'unit_converter', input: { value: 750, from: 'g', to: 'kg' } },
    ]);
    expect(answerOf(second)).toBe('For 12 people you need 750 grams, which is 0.75 kilograms.');
  });

  it('keeps a task without unit parts as it was', async () => {
    const run = await runDemo(RECIPE);
    expect(run.kinds()).toEqual([...PROPORTION_STEPS, 'final_answer']);
    expect(thoughtOf(run)).toContain('first the amount for one person (250 ÷ 4)');
    expect(answerOf(run)).toBe('For 10 people you need 625 grams.');
  });
});

describe('demo agent understands a newcomer\'s follow-ups', () => {
  it.each([
    ['Now for 25 people', 'With 25 instead of 10: For 25 people you need 1562.5 grams.'],
    ['What about 25 people?', 'With 25 instead of 10: For 25 people you need 1562.5 grams.'],
    ['And for 25 people?', 'With 25 instead of 10: For 25 people you need 1562.5 grams.'],
  ])('"%s" changes the count the question asks about', async (message, answer) => {
    const turn = await followUp(RECIPE, message);
    expect(turn.kinds()).toEqual([...PROPORTION_STEPS, 'final_answer']);
    expect(thoughtOf(turn)).toContain('You asked me to use 25 instead of 10');
    expect(toolCalls(turn)).toEqual([
      { tool: 'calculator', input: { expression: '250 / 4' } },
      { tool: 'calculator', input: { expression: '62.5 * 25' } },
    ]);
    expect(answerOf(turn)).toBe(answer);
  });

  it('「换成 25 个人呢？」 changes the count the question asks about', async () => {
    const turn = await followUp(RECIPE_ZH, '换成 25 个人呢？');
    expect(toolCalls(turn)).toEqual([
      { tool: 'calculator', input: { expression: '250 / 4' } },
      { tool: 'calculator', input: { expression: '62.5 * 25' } },
    ]);
    expect(answerOf(turn)).toBe('用25代替10：25个人需要1562.5克。');
  });

  it.each([
    [RECIPE, 'What is that in kilograms?', { value: 625, from: 'g', to: 'kg' }, 'You asked for my previous answer, 625 grams, in kilograms.', '625 grams is 0.625 kilograms.'],
    [RECIPE, 'And in pounds?', { value: 625, from: 'g', to: 'lb' }, 'You asked for my previous answer, 625 grams, in pounds.', '625 grams is about 1.38 pounds.'],
    [RECIPE_ZH, '那是多少千克？', { value: 625, from: 'g', to: 'kg' }, '你要我把上一个答案625克换算成公斤。', '625克等于0.625公斤。'],
    [SPEED, 'in miles per hour', { value: 75, from: 'km/h', to: 'mph' }, 'You asked for my previous answer, 75 km/h, in miles per hour.', '75 km/h is about 46.6 mph.'],
    [SPEED_IN_MS, 'answer in km/h', { value: 20.8333333333, from: 'm/s', to: 'km/h' }, 'You asked for my previous answer, about 20.83 m/s, in kilometres per hour.', 'About 20.83 m/s is 75 km/h.'],
    [SPEED_ZH_IN_MS, '请用千米每小时回答', { value: 20.8333333333, from: 'm/s', to: 'km/h' }, '你要我把上一个答案约每秒20.83米（20.83 m/s）换算成公里每小时。', '约每秒20.83米（20.83 m/s）等于每小时75公里（75 km/h）。'],
  ])('after "%s", "%s" converts the previous answer with the unit converter', async (task, message, input, thought, answer) => {
    const turn = await followUp(task, message);
    expect(turn.kinds()).toEqual(CONVERSION_STEPS);
    expect(thoughtOf(turn)).toContain(thought);
    expect(toolCalls(turn)).toEqual([{ tool: 'unit_converter', input }]);
    expect(answerOf(turn)).toBe(answer);
  });

  it('follows a conversation: a new count, that amount in kilograms, then in pounds', async () => {
    const { turns } = await converse(RECIPE, ['Now for 25 people', 'What is that in kilograms?', 'And in pounds?']);
    expect(answerOf(turns[1]!)).toBe('With 25 instead of 10: For 25 people you need 1562.5 grams.');
    expect(toolCalls(turns[2]!)).toEqual([{ tool: 'unit_converter', input: { value: 1562.5, from: 'g', to: 'kg' } }]);
    expect(answerOf(turns[2]!)).toBe('1562.5 grams is about 1.56 kilograms.');
    expect(toolCalls(turns[3]!)).toEqual([{ tool: 'unit_converter', input: { value: 1.5625, from: 'kg', to: 'lb' } }]);
    expect(answerOf(turns[3]!)).toBe('About 1.56 kilograms is about 3.44 pounds.');
  });

  it('keeps giving the amount in the unit the user asked for when a later follow-up changes the count', async () => {
    const { turns } = await converse(RECIPE, ['What is that in kilograms?', 'Now for 25 people']);
    expect(toolCalls(turns[2]!)).toEqual([
      { tool: 'calculator', input: { expression: '250 / 4' } },
      { tool: 'calculator', input: { expression: '62.5 * 25' } },
      { tool: 'unit_converter', input: { value: 1562.5, from: 'g', to: 'kg' } },
    ]);
    expect(answerOf(turns[2]!)).toBe('With 25 instead of 10: For 25 people you need 1562.5 grams, which is about 1.56 kilograms.');
  });

  it('keeps asking for every part when a follow-up changes the count of a task with a unit part', async () => {
    const task = 'A recipe needs 250 g flour for 4 people. How much for 10 people, and what is that in kilograms?';
    const turn = await followUp(task, 'Now for 25 people');
    expect(toolCalls(turn).at(-1)).toEqual({ tool: 'unit_converter', input: { value: 1562.5, from: 'g', to: 'kg' } });
    expect(answerOf(turn)).toBe('With 25 instead of 10: For 25 people you need 1562.5 grams, which is about 1.56 kilograms.');
  });

  it('says an answer is already in the unit asked for, and computes nothing', async () => {
    const turn = await followUp(SPEED, 'answer in km/h');
    expect(turn.kinds()).toEqual(['thought', 'final_answer']);
    expect(answerOf(turn)).toBe('My answer is already in kilometres per hour: 75 km/h.');
  });
});

describe('demo agent takes a steer to another unit', () => {
  it('「请用千米每小时回答」 during the run: works the speed out again in km/h, without converting to m/s and back', async () => {
    const first = await runDemo(SPEED_ZH_IN_MS);
    const steered = withMessage(asChain(first.steps).slice(0, 4), '请用千米每小时回答');
    const turn = await runDemo(SPEED_ZH_IN_MS, steered);
    expect(turn.kinds()).toEqual(CONVERSION_STEPS);
    expect(thoughtOf(turn)).toMatch(/^你说“请用千米每小时回答”，我重新解题，并把结果换算成公里每小时。/u);
    expect(toolCalls(turn)).toEqual([{ tool: 'calculator', input: { expression: '150 / 2' } }]);
    expect(answerOf(turn)).toBe('按照你的要求（请用千米每小时回答），平均速度是每小时75公里（75 km/h）。');
  });

  it('"in miles per hour" during the run: computes the speed, then converts it', async () => {
    const first = await runDemo(SPEED);
    const steered = withMessage(asChain(first.steps).slice(0, 2), 'in miles per hour');
    const turn = await runDemo(SPEED, steered);
    expect(turn.kinds()).toEqual(['thought', 'action', 'tool_call', 'observation', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(toolCalls(turn)).toEqual([
      { tool: 'calculator', input: { expression: '150 / 2' } },
      { tool: 'unit_converter', input: { value: 75, from: 'km/h', to: 'mph' } },
    ]);
    expect(answerOf(turn)).toBe('Following your instruction (in miles per hour): The average speed is 75 km/h, which is about 46.6 mph.');
  });

  it('"convert to kilograms instead" as a message after the run converts the answer', async () => {
    const turn = await followUp(RECIPE, 'convert to kilograms instead');
    expect(toolCalls(turn)).toEqual([{ tool: 'unit_converter', input: { value: 625, from: 'g', to: 'kg' } }]);
    expect(answerOf(turn)).toBe('625 grams is 0.625 kilograms.');
  });

  it('"convert to kilograms instead" as the reason for rejecting a conversion still converts to kilograms', async () => {
    const task = 'How many grams is 5 pounds?';
    const first = await runDemo(task);
    const next = await runDemo(task, refusedAt(asChain(first.steps), 'unit_converter', 'convert to kilograms instead'));
    expect(toolCalls(next)).toEqual([{ tool: 'unit_converter', input: { value: 5, from: 'lb', to: 'kg' } }]);
    expect(answerOf(next)).toBe('As you asked, in kilograms: 5 pounds is about 2.27 kilograms.');
  });
});

describe('demo agent takes a unit in a rejection\'s reason', () => {
  it('「请用千米每小时回答」 as the reason for rejecting the conversion to m/s: the km/h result is the answer, no call needed', async () => {
    const first = await runDemo(SPEED_ZH_IN_MS);
    const next = await runDemo(SPEED_ZH_IN_MS, refusedAt(asChain(first.steps), 'unit_converter', '请用千米每小时回答'));
    expect(next.kinds()).toEqual(['final_answer']);
    expect(answerOf(next)).toBe('按你的要求用公里每小时：换算前的结果就是每小时75公里（75 km/h），这就是答案。');
  });

  it('"in miles per hour" as the reason for rejecting the conversion to m/s converts to mph instead', async () => {
    const first = await runDemo(SPEED_IN_MS);
    const next = await runDemo(SPEED_IN_MS, refusedAt(asChain(first.steps), 'unit_converter', 'in miles per hour'));
    expect(toolCalls(next)).toEqual([{ tool: 'unit_converter', input: { value: 75, from: 'km/h', to: 'mph' } }]);
    expect(answerOf(next)).toBe('As you asked, in miles per hour: 75 km/h is about 46.6 mph.');
  });
});

describe('demo agent still declines honestly', () => {
  it.each([
    ['What is 15% of 240?', 'What is that in kilograms?', 'I could not work out "What is that in kilograms?": the result has no unit to convert into kilograms. My previous answer, 36, still stands.'],
    [SPEED, 'What is that in kilograms?', 'I could not work out "What is that in kilograms?": the result is a speed in kilometres per hour, and kilograms measure mass. My previous answer, 75 km/h, still stands.'],
    [SPEED, 'What is that in furlongs?', 'I could not work out "What is that in furlongs?": I don\'t know the unit "furlongs". My previous answer, 75 km/h, still stands.'],
    [RECIPE_ZH, '那是多少公里？', '我没能算出“那是多少公里？”：结果是以克为单位的质量，而公里是长度单位。我上一个答案625克仍然有效。'],
  ])('after "%s", "%s" computes nothing and says why', async (task, message, answer) => {
    const turn = await followUp(task, message);
    expect(turn.kinds()).toEqual(['thought', 'final_answer']);
    expect(answerOf(turn)).toBe(answer);
  });

  it('an unrelated request still declines with what it can do', async () => {
    const turn = await followUp(RECIPE, 'Write me a poem');
    expect(toolCalls(turn)).toEqual([]);
    expect(answerOf(turn)).toContain('Offline, I can solve arithmetic, percentages, word problems and unit conversions');
  });

  it('a message it cannot read still says so, with the answer that stands in its unit', async () => {
    const turn = await followUp(RECIPE, 'hmm, interesting');
    expect(turn.kinds()).toEqual(['thought', 'final_answer']);
    expect(answerOf(turn)).toMatch(/^I did not understand what to change from "hmm, interesting", so I have not computed anything new\. My previous answer, 625 grams, still stands\./u);
  });
});
