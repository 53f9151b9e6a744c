import { describe, expect, it } from 'vitest';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { runDemo } from './demo-harness.js';

const FIVE_KINDS = ['thought', 'action', 'tool_call', 'observation', 'final_answer'];

async function answer(task: string): Promise<string> {
  return (await runDemo(task)).last('final_answer')?.content ?? '';
}

describe('demo agent: arithmetic tasks', () => {
  it('uses all five step kinds, in order, for an arithmetic task', async () => {
    const sink = await runDemo('What is 12*(3+4)?');
    expect(sink.kinds()).toEqual(FIVE_KINDS);
    expect(sink.steps.every((step) => step.ended)).toBe(true);
  });

  it('calls the calculator with the expression as JSON and observes its real result', async () => {
    const sink = await runDemo('What is 12*(3+4)?');
    const call = sink.last('tool_call');
    expect(call?.tool).toBe('calculator');
    expect(JSON.parse(call?.content ?? '')).toEqual({ expression: '12 * (3 + 4)' });
    const observation = sink.last('observation');
    expect(observation?.tool).toBe('calculator');
    expect(observation?.content).toBe('12 × (3 + 4) = 84');
    expect(observation?.result).toEqual({ expression: '12 * (3 + 4)', value: 84 });
    expect(sink.last('final_answer')?.content).toContain('84');
  });

  it('plans the call in the action and names the quantities in the thought', async () => {
    const sink = await runDemo('A train travels 180 km in 2.5 hours. What is its average speed?');
    expect(sink.last('thought')?.content).toMatch(/180 kilometres.*2\.5 hours/u);
    expect(sink.last('action')?.content).toContain('180 ÷ 2.5 with the calculator');
  });

  it.each([
    ['What is 12*(3+4)?', '84'],
    ['What is 15% of 240?', '15% of 240 is 36.'],
    ['A train travels 180 km in 2.5 hours. What is its average speed?', 'The average speed is 72 km/h.'],
    ['How many minutes are in 3.5 hours?', '3.5 hours is 210 minutes.'],
    ['A shirt costs $40 and is 25% off; what is the price?', 'the price is $30.'],
    ['Tom has 12 apples. He eats 3 and then buys 5 more. How many apples does he have now?', 'Tom now has 14 apples.'],
    ['What is the average of 3, 5 and 10?', 'The average is 6.'],
    ['Each box holds 12 pencils. How many pencils are in 5 boxes?', '60 pencils'],
    ['What is 12 times 7?', '84'],
    ['What is ten plus five?', '15'],
    ['Tom has twelve apples. He eats three and then buys five more. How many apples does he have now?', 'Tom now has 14 apples.'],
    ['If I have three boxes with a dozen eggs each, how many eggs do I have?', '36 eggs'],
    ['One box holds 12 pencils. How many pencils are in five boxes?', '60 pencils'],
    ['Tom has one apple and buys two more. How many apples does he have?', 'Tom now has 3 apples.'],
    ['What is one plus one?', '1 + 1 = 2'],
    ['How many minutes are in two and a half hours?', '2.5 hours is 150 minutes.'],
    ['Convert 100°F to Celsius', '37.78 °C'],
    ['How many days are there between 2024-01-01 and 2024-03-01?', 'There are 60 days from 2024-01-01 to 2024-03-01.'],
    ['Sarah had 20 dollars and spent 7. How much is left?', 'Sarah now has $13.'],
    ['If I have 3 boxes with 12 eggs each, how many eggs do I have?', '36 eggs'],
    ['A pizza costs $12.50. How much do 3 pizzas cost?', '$37.50'],
    ['What is 17 divided by 4?', '4.25'],
    ['What is the square root of 144?', '12'],
    ['The temperature is -5 C. What is it in F?', '-5 °C is 23 °F.'],
  ])('answers %s', async (task, expected) => {
    expect(await answer(task)).toContain(expected);
  });

  it.each([
    ['计算 (15+27)×3', '126'],
    ['240的15%是多少？', '240的15%是36。'],
    ['小明有12个苹果，吃了3个，又买了5个，现在有几个？', '小明现在有14个苹果。'],
    ['一列火车2.5小时行驶180公里，平均速度是多少？', '平均速度是每小时72公里'],
    ['3.5小时是多少分钟？', '3.5小时等于210分钟。'],
    ['一件衬衫原价40元，打八折后多少钱？', '价格是32元。'],
    ['每盒12支铅笔，5盒一共多少支？', '一共是60支铅笔。'],
    ['一个盒子有十二个鸡蛋，三个盒子有多少个鸡蛋？', '一共是36个鸡蛋。'],
    ['一百减去三十七是多少？', '100 − 37 = 63'],
    ['三乘以八等于多少？', '3 × 8 = 24'],
    ['24个苹果平均分给6个小朋友，每人分几个？', '每人4个苹果。'],
    ['汽车每小时行驶60公里，3小时行驶多少公里？', '路程是180公里。'],
    ['一辆车3小时行驶了240千米，它的速度是多少？', '平均速度是每小时80公里'],
    ['一件衣服原价200元，现在打七五折，现价多少元？', '价格是150元。'],
    ['班上有男生18人，女生20人，一共有多少人？', '一共有38人。'],
    ['小红有十五颗糖，给了小明六颗，还剩几颗？', '小红现在有9颗糖。'],
  ])('answers %s in Chinese', async (task, expected) => {
    expect(await answer(task)).toContain(expected);
  });

  it('solves a problem with two tool calls when the question asks for another unit', async () => {
    const sink = await runDemo('A train travels 180 km in 2.5 hours. What is its average speed in m/s?');
    expect(sink.kinds()).toEqual(['thought', 'action', 'tool_call', 'observation', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(sink.steps.filter((step) => step.kind === 'tool_call').map((step) => step.tool)).toEqual(['calculator', 'unit_converter']);
    expect(JSON.parse(sink.last('tool_call')?.content ?? '')).toEqual({ value: 72, from: 'km/h', to: 'm/s' });
    expect(sink.last('final_answer')?.content).toBe('The average speed is 20 m/s.');
  });

  it('chains two discounts, the second applied to the first result', async () => {
    const sink = await runDemo('A jacket is $80. It is 20% off, then another 10% off. What do I pay?');
    expect(sink.steps.filter((step) => step.kind === 'tool_call').map((step) => JSON.parse(step.content))).toEqual([
      { expression: '80 - 20%' },
      { expression: '64 - 10%' },
    ]);
    expect(sink.last('final_answer')?.content).toContain('$57.60');
  });

  it('reports a tool error as the observation and does not invent a number', async () => {
    const sink = await runDemo('What is 5/0?');
    expect(sink.last('observation')?.content).toBe('Error: Division by zero at position 3');
    expect(sink.last('observation')?.result).toEqual({ error: 'Division by zero at position 3' });
    expect(sink.last('final_answer')?.content).toContain('The calculator reported an error: Division by zero at position 3.');
  });
});

describe('demo agent: tasks it cannot compute', () => {
  it('answers a non-numeric task with an honest thought, a tailored plan and a pointer to the openai agent, without tools', async () => {
    const sink = await runDemo('Plan a trip to Kyoto');
    expect(sink.kinds()).toEqual(['thought', 'action', 'final_answer']);
    expect(sink.last('thought')?.content).toContain('offline demo agent');
    expect(sink.last('thought')?.content).toContain('no language model');
    const plan = sink.last('action')?.content ?? '';
    expect(plan.match(/^\d\. /gmu)?.length).toBeGreaterThanOrEqual(3);
    expect(plan).toContain('Kyoto');
    expect(sink.last('final_answer')?.content).toContain('`openai` agent');
  });

  it('answers a Chinese open task in Chinese', async () => {
    const sink = await runDemo('写一首诗');
    expect(sink.kinds()).toEqual(['thought', 'action', 'final_answer']);
    expect(sink.last('thought')?.content).toContain('离线演示智能体');
    expect(sink.last('action')?.content).toContain('诗');
    expect(sink.last('final_answer')?.content).toContain('`openai`');
  });

  it('says it is unsure instead of guessing when numbers have no operation it recognises', async () => {
    const sink = await runDemo('I have 3 cats and 4 dogs');
    expect(sink.kinds()).toEqual(['thought', 'action', 'final_answer']);
    expect(sink.last('thought')?.content).toContain('the numbers 3 and 4');
    expect(sink.last('final_answer')?.content).toContain('could not work out which calculation');
  });
});

describe('demo agent: identity', () => {
  it('is named demo, always available, and describes itself in one line', () => {
    const agent = createDemoAgent();
    expect(agent.name).toBe('demo');
    expect(agent.availability()).toEqual({ available: true });
    expect(agent.description).not.toContain('\n');
    expect(agent.description).toMatch(/offline/iu);
  });
});
