import { describe, expect, it } from 'vitest';
import { asChain, correct, runCorrected, runDemo } from './demo-harness.js';

describe('demo agent: a corrected tool call', () => {
  it('re-runs the tool with the corrected input and answers from the new result', async () => {
    const { second } = await runCorrected('What is 12*(3+4)?', 'tool_call', () => '{"expression":"12 * (3 + 5)"}');
    expect(second.kinds()).toEqual(['observation', 'final_answer']);
    expect(second.last('observation')?.content).toBe('12 × (3 + 5) = 96');
    expect(second.last('observation')?.result).toEqual({ expression: '12 * (3 + 5)', value: 96 });
    expect(second.last('final_answer')?.content).toContain('96');
    expect(second.last('final_answer')?.content).not.toContain('84');
  });

  it('re-runs the unit converter and states the corrected conversion', async () => {
    const { second } = await runCorrected('How many minutes are in 3.5 hours?', 'tool_call', () => '{"value":4,"from":"h","to":"min"}');
    expect(second.last('observation')?.content).toBe('4 h = 240 min');
    expect(second.last('final_answer')?.content).toBe('4 hours is 240 minutes.');
  });

  it('continues a two-step plan from the corrected first call', async () => {
    const { second } = await runCorrected('A train travels 180 km in 2.5 hours. What is its average speed in m/s?', 'tool_call', () => '{"expression":"180 / 2"}');
    expect(second.kinds()).toEqual(['observation', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(JSON.parse(second.last('tool_call')?.content ?? '')).toEqual({ value: 90, from: 'km/h', to: 'm/s' });
    expect(second.last('final_answer')?.content).toBe('The average speed is 25 m/s.');
  });

  it('reports a tool error caused by the corrected input', async () => {
    const { second } = await runCorrected('What is 12*(3+4)?', 'tool_call', () => '{"expression":"12 / (3 - 3)"}');
    expect(second.last('observation')?.content).toBe('Error: Division by zero at position 4');
    expect(second.last('final_answer')?.content).toContain('Division by zero');
  });

  it('answers input that fails the tool schema with an error observation instead of crashing', async () => {
    const { second } = await runCorrected('What is 12*(3+4)?', 'tool_call', () => '{"expr":"1"}');
    expect(second.kinds()).toEqual(['observation', 'final_answer']);
    expect(second.last('observation')?.content).toMatch(/^Error: Invalid input for calculator/u);
  });
});

describe('demo agent: a corrected observation', () => {
  it('uses the number after "=" as the result', async () => {
    const { second } = await runCorrected('What is 12*(3+4)?', 'observation', () => '12 × (3 + 4) = 90');
    expect(second.kinds()).toEqual(['final_answer']);
    expect(second.last('final_answer')?.content).toBe('The answer is 90.');
  });

  it('uses a bare number as the result, with the unit of the question', async () => {
    const { second } = await runCorrected('A train travels 180 km in 2.5 hours. What is its average speed?', 'observation', () => '75');
    expect(second.last('final_answer')?.content).toBe('The average speed is 75 km/h.');
  });

  it('feeds the corrected number into the next step of a two-step plan', async () => {
    const { second } = await runCorrected('A train travels 180 km in 2.5 hours. What is its average speed in m/s?', 'observation', () => '= 36');
    expect(JSON.parse(second.steps.find((step) => step.kind === 'tool_call')?.content ?? '')).toEqual({ value: 36, from: 'km/h', to: 'm/s' });
    expect(second.last('final_answer')?.content).toBe('The average speed is 10 m/s.');
  });

  it('answers in Chinese with the corrected number', async () => {
    const { second } = await runCorrected('小明有12个苹果，吃了3个，又买了5个，现在有几个？', 'observation', () => '= 16');
    expect(second.last('final_answer')?.content).toBe('小明现在有16个苹果。');
  });

  it('takes the number from the note when the corrected observation has none', async () => {
    const { second } = await runCorrected('What is 12*(3+4)?', 'observation', () => 'the tool was wrong', { note: 'it should be 85' });
    expect(second.last('final_answer')?.content).toBe('The answer is 85.');
  });

  it('says what it could not read when the observation has no number', async () => {
    const { second } = await runCorrected('What is 12*(3+4)?', 'observation', () => 'no idea');
    expect(second.kinds()).toEqual(['final_answer']);
    expect(second.last('final_answer')?.content).toContain('could not read a number in the observation "no idea"');
  });
});

describe('demo agent: a corrected thought', () => {
  it('changes the next tool call when a quantity in the thought changes', async () => {
    const { first, second } = await runCorrected('小明有12个苹果，吃了3个，又买了5个，现在有几个？', 'thought', (text) => text.replace('12个苹果', '20个苹果'));
    expect(JSON.parse(first.last('tool_call')?.content ?? '')).toEqual({ expression: '12 - 3 + 5' });
    expect(second.kinds()).toEqual(['action', 'tool_call', 'observation', 'final_answer']);
    expect(JSON.parse(second.last('tool_call')?.content ?? '')).toEqual({ expression: '20 - 3 + 5' });
    expect(second.last('final_answer')?.content).toBe('小明现在有22个苹果。');
  });

  it('uses a different expression written into the thought', async () => {
    const { second } = await runCorrected('What is 12*(3+4)?', 'thought', () => 'The task really means 12 × (3 + 4) − 4.');
    expect(JSON.parse(second.last('tool_call')?.content ?? '')).toEqual({ expression: '12 * (3 + 4) - 4' });
    expect(second.last('final_answer')?.content).toContain('80');
  });

  it('reads replacement numbers from the correction note', async () => {
    const task = 'Tom has 12 apples. He eats 3 and then buys 5 more. How many apples does he have now?';
    const { second } = await runCorrected(task, 'thought', (text) => `${text} Recheck the first count.`, { note: 'use 20 instead of 12' });
    expect(JSON.parse(second.last('tool_call')?.content ?? '')).toEqual({ expression: '20 - 3 + 5' });
    expect(second.last('final_answer')?.content).toBe('Tom now has 22 apples.');
  });

  it('changes the price of a discount problem', async () => {
    const { second } = await runCorrected('A shirt costs $40 and is 25% off; what is the price?', 'thought', (text) => text.replace('$40', '$60'));
    expect(JSON.parse(second.last('tool_call')?.content ?? '')).toEqual({ expression: '60 - 25%' });
    expect(second.last('final_answer')?.content).toContain('$45');
  });

  it('keeps the task’s calculation and says so when the thought names nothing to compute with', async () => {
    const { second } = await runCorrected('What is 15% of 240?', 'thought', () => 'This is a percentage problem.');
    expect(second.last('action')?.content).toContain('names no new numbers or expression');
    expect(JSON.parse(second.last('tool_call')?.content ?? '')).toEqual({ expression: '240 * 15%' });
  });

  it('turns an open task into a calculation when the thought states one', async () => {
    const { second } = await runCorrected('Plan a trip to Kyoto', 'thought', () => 'First work out the budget: 3 nights at 120 per night, so 3 * 120.');
    expect(second.kinds()).toEqual(['action', 'tool_call', 'observation', 'final_answer']);
    expect(second.last('observation')?.content).toBe('3 × 120 = 360');
  });

  it('re-tailors an open task’s plan to the topic named in the thought', async () => {
    const { second } = await runCorrected('Plan a trip to Kyoto', 'thought', (text) => text.replace('Kyoto', 'Osaka'));
    expect(second.kinds()).toEqual(['action', 'final_answer']);
    expect(second.last('action')?.content).toContain('Osaka');
    expect(second.last('action')?.content).not.toContain('Kyoto');
  });
});

describe('demo agent: a corrected action', () => {
  it('runs the expression stated in the corrected action', async () => {
    const { second } = await runCorrected('A train travels 180 km in 2.5 hours. What is its average speed?', 'action', (text) => text.replace('180 ÷ 2.5', '200 ÷ 2.5'));
    expect(second.kinds()).toEqual(['tool_call', 'observation', 'final_answer']);
    expect(JSON.parse(second.last('tool_call')?.content ?? '')).toEqual({ expression: '200 / 2.5' });
    expect(second.last('final_answer')?.content).toBe('The average speed is 80 km/h.');
  });

  it('runs the conversion stated in the corrected action', async () => {
    const { second } = await runCorrected('How many minutes are in 3.5 hours?', 'action', () => "I'll convert 3.5 h to seconds with the unit converter.");
    expect(JSON.parse(second.last('tool_call')?.content ?? '')).toEqual({ value: 3.5, from: 'h', to: 's' });
    expect(second.last('final_answer')?.content).toBe('3.5 hours is 12600 seconds.');
  });

  it('re-plans with the numbers a rewritten action asks for', async () => {
    const { second } = await runCorrected('小明有12个苹果，吃了3个，又买了5个，现在有几个？', 'action', () => '用20代替12再算一次。');
    expect(JSON.parse(second.last('tool_call')?.content ?? '')).toEqual({ expression: '20 - 3 + 5' });
    expect(second.last('final_answer')?.content).toBe('小明现在有22个苹果。');
  });

  it('re-plans a conversion with a changed quantity in the action', async () => {
    const { second } = await runCorrected('How many minutes are in 3.5 hours?', 'action', (text) => text.replace('3.5 h', '4.5 h'));
    expect(JSON.parse(second.last('tool_call')?.content ?? '')).toEqual({ value: 4.5, from: 'h', to: 'min' });
    expect(second.last('final_answer')?.content).toBe('4.5 hours is 270 minutes.');
  });

  it('answers an open task from the plan the user wrote', async () => {
    const { second } = await runCorrected('Plan a trip to Kyoto', 'action', () => 'Plan:\n1. Book a ryokan.\n2. Visit Fushimi Inari.');
    expect(second.kinds()).toEqual(['final_answer']);
    expect(second.last('final_answer')?.content).toContain('2 steps, starting with: Book a ryokan');
  });
});

describe('demo agent: where the chain ends', () => {
  it('emits nothing after a corrected final answer: the user’s answer stands', async () => {
    const { second } = await runCorrected('What is 12*(3+4)?', 'final_answer', () => 'It is 85.');
    expect(second.steps).toEqual([]);
  });

  it('emits nothing after its own final answer', async () => {
    const first = await runDemo('What is 12*(3+4)?');
    expect((await runDemo('What is 12*(3+4)?', asChain(first.steps))).steps).toEqual([]);
  });

  it('continues an interrupted chain from its last completed step', async () => {
    const first = await runDemo('What is 12*(3+4)?');
    const upToCall = asChain(first.steps).slice(0, 3);
    const resumed = await runDemo('What is 12*(3+4)?', upToCall);
    expect(resumed.kinds()).toEqual(['observation', 'final_answer']);
    expect(resumed.last('final_answer')?.content).toContain('84');
  });

  it('uses a completed observation’s structured result when it continues', async () => {
    const first = await runDemo('A train travels 180 km in 2.5 hours. What is its average speed in m/s?');
    const upToFirstObservation = asChain(first.steps).slice(0, 4);
    const resumed = await runDemo('A train travels 180 km in 2.5 hours. What is its average speed in m/s?', upToFirstObservation);
    expect(JSON.parse(resumed.last('tool_call')?.content ?? '')).toEqual({ value: 72, from: 'km/h', to: 'm/s' });
  });

  it('starts from the task on an empty chain', async () => {
    expect((await runDemo('What is 12*(3+4)?', [])).kinds()[0]).toBe('thought');
  });

  it('builds corrected chains as the core does (a helper check)', () => {
    const chain = correct(
      [{ stepId: 'a', parentId: null, index: 0, kind: 'thought', status: 'completed', content: 'x', revision: 0 }],
      'thought',
      'y',
      { note: 'n' },
    );
    expect(chain).toEqual([
      {
        stepId: 'a-fix',
        parentId: null,
        index: 0,
        kind: 'thought',
        status: 'corrected',
        content: 'y',
        revision: 1,
        correctionOf: 'a',
        correction: { previousContent: 'x', note: 'n', at: '2025-01-01T00:00:00.000Z' },
      },
    ]);
  });
});
