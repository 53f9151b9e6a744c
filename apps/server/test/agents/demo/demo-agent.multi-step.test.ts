import { describe, expect, it } from 'vitest';
import { runCorrected, runDemo } from './demo-harness.js';

/** Everyday tasks, half English and half Chinese, with the exact final answer (and so the exact number) each must get. */
const TASKS: ReadonlyArray<[string, string]> = [
  ["What is the square root of 144 plus 2 cubed?", "144^0.5 + 2^3 = 20, so the answer is 20."],
  ["If a shirt costs $40 and is 25% off, and tax is 8%, what do I pay?", "After 25% off and 8% added, the price is $32.40."],
  ["A recipe needs 250 g flour for 4 people. How much for 10 people?", "For 10 people you need 625 grams."],
  ["What day of the week is 100 days after 2026-11-30?", "100 days after 2026-11-30 is 2027-03-10, a Wednesday."],
  ["How many seconds are in 3.5 hours?", "3.5 hours is 12600 seconds."],
  ["What is 12*(3+4)?", "12 × (3 + 4) = 84, so the answer is 84."],
  ["What is 15% of 240?", "15% of 240 is 36."],
  ["What is half of 30 plus 4?", "(30 ÷ 2) + 4 = 19, so the answer is 19."],
  ["What is twice 7 plus the sum of 3 and 4?", "(2 × 7) + (3 + 4) = 21, so the answer is 21."],
  ["What is 5 squared minus 3 cubed?", "5^2 − 3^3 = -2, so the answer is -2."],
  ["What is the cube root of 27 times 4?", "27^(1 ÷ 3) × 4 = 12, so the answer is 12."],
  ["A jacket is $80. It is 20% off, then another 10% off. What do I pay?", "After 20% off and 10% off, the price is $57.60."],
  ["A meal costs $50 plus 8% tax and a 15% tip. What is the total?", "With 8% added and 15% added, the total is $62.10."],
  ["A TV costs $500. It is 10% off, then a $20 coupon. What do I pay?", "After 10% off and $20 off, the price is $430."],
  ["3 pens cost $4.50. How much do 7 pens cost?", "For 7 pens you need $10.50."],
  ["How long does it take to cycle 5 km at 12 km/h, in minutes?", "It takes 25 minutes."],
  ["A car drives at 50 km/h for 3 hours. How far does it go in miles?", "The distance is about 93.21 miles."],
  ["What is the remainder when 17 is divided by 5?", "The remainder of 17 ÷ 5 is 2."],
  ["A price went from $80 to $100. What is the percentage change?", "That is an increase of 25%."],
  ["A town shrank from 2000 to 1500 people. What is the percentage change?", "That is a decrease of 25%."],
  ["What date is 30 days after 2024-01-01?", "30 days after 2024-01-01 is 2024-01-31, a Wednesday."],
  ["How many days are there between 2024-01-01 and 2024-03-01?", "There are 60 days from 2024-01-01 to 2024-03-01."],
  ["A train travels 180 km in 2.5 hours. What is its average speed in m/s?", "The average speed is 20 m/s."],
  ["Tom has 12 apples. He eats 3 and then buys 5 more. How many apples does he have now?", "Tom now has 14 apples."],
  ["What is the average of 3, 5 and 10?", "The average is 6."],
  ["Convert 100°F to Celsius", "100 °F is about 37.78 °C."],
  ["What is 12 times 7 plus 1?", "12 × 7 + 1 = 85, so the answer is 85."],
  ["What is 100 divided by 8 minus 2?", "100 ÷ 8 − 2 = 10.5, so the answer is 10.5."],
  ["What is 2 to the power of 10 minus 24?", "2^10 − 24 = 1000, so the answer is 1000."],
  ["Each box holds 12 pencils. How many pencils are in 5 boxes?", "That makes 60 pencils in total."],
  ["一件衬衫原价40元，打八折后多少钱？", "8折（按原价的80%付）后，价格是32元。"],
  ["一件衣服原价200元，先打八折，再减20元，现价多少元？", "8折（按原价的80%付）和减20元后，价格是140元。"],
  ["144开方加上2的立方是多少？", "144^0.5 + 2^3 = 20，答案是 20。"],
  ["30的一半加4等于多少？", "(30 ÷ 2) + 4 = 19，答案是 19。"],
  ["5的平方减3是多少？", "5^2 − 3 = 22，答案是 22。"],
  ["3与4的和乘以5是多少？", "(3 + 4) × 5 = 35，答案是 35。"],
  ["7的2倍加3等于多少？", "(7 × 2) + 3 = 17，答案是 17。"],
  ["4个人需要250克面粉，10个人需要多少克？", "10个人需要625克。"],
  ["以每小时60公里的速度行驶90公里，需要多少分钟？", "需要90分钟。"],
  ["从80元涨到100元，涨了百分之几？", "增长了25%。"],
  ["17除以5的余数是多少？", "17 ÷ 5的余数是2。"],
  ["2026-11-30之后100天是星期几？", "2026-11-30之后100天是2027-03-10，星期三。"],
  ["小明有12个苹果，吃了3个，又买了5个，现在有几个？", "小明现在有14个苹果。"],
  ["计算 (15+27)×3", "(15 + 27) × 3 = 126，答案是 126。"],
  ["240的15%是多少？", "240的15%是36。"],
  ["3.5小时是多少分钟？", "3.5小时等于210分钟。"],
  ["一列火车2.5小时行驶180公里，平均速度是多少？", "平均速度是每小时72公里（72 km/h）。"],
  ["每盒12支铅笔，5盒一共多少支？", "一共是60支铅笔。"],
  ["24个苹果平均分给6个小朋友，每人分几个？", "每人4个苹果。"],
  ["汽车每小时行驶60公里，3小时行驶多少公里？", "路程是180公里。"],
  ["一件衣服原价200元，现在打七五折，现价多少元？", "75折（按原价的75%付）后，价格是150元。"],
  ["班上有男生18人，女生20人，一共有多少人？", "一共有38人。"],
  ["小红有十五颗糖，给了小明六颗，还剩几颗？", "小红现在有9颗糖。"],
  ["12乘以7加3等于多少？", "12 × 7 + 3 = 87，答案是 87。"],
  ["100除以4减5等于多少？", "100 ÷ 4 − 5 = 20，答案是 20。"],
  ["一件商品原价300元，打九折后再打八折，现价多少元？", "9折（按原价的90%付）和8折（按原价的80%付）后，价格是216元。"],
  ["一双鞋原价150元，降价20%后再加10%的税，要付多少元？", "便宜20%和加10%后，价格是132元。"],
  ["3支笔12元，7支笔多少元？", "7支笔需要28元。"],
  ["从2024年1月1日到2024年3月1日有多少天？", "从2024-01-01到2024-03-01相隔60天。"],
  ["5公里等于多少米？", "5公里等于5000米。"],
  ["3、5、10的平均数是多少？", "平均数是6。"],
  ["根号81加上2的平方等于多少？", "81^0.5 + 2^2 = 13，答案是 13。"],
  ["汽车以每小时80公里的速度行驶2小时，行驶了多少英里？", "路程是约99.42英里。"],
  ["一本书从50元降到40元，降了百分之几？", "下降了20%。"],
  ["2024-02-01之后30天是哪一天？", "2024-02-01之后30天是2024-03-02，星期六。"],
  ["29除以4余数是多少？", "29 ÷ 4的余数是1。"],
  ["What is 100 km in miles?", "100 kilometres is about 62.14 miles."],
  ["Sarah had 20 dollars and spent 7. How much is left?", "Sarah now has $13."],
  ["A pizza costs $12.50. How much do 3 pizzas cost?", "The total cost is $37.50."],
  ["The temperature is -5 C. What is it in F?", "-5 °C is 23 °F."],
  ["A car drives 120 km at 60 km/h, then 90 km at 45 km/h. How long does the whole trip take?", "Altogether it takes 4 hours."],
  ["A car drives 120 km at 60 km/h, then 90 km at 45 km/h. What is the average speed?", "The average speed over the whole trip is 52.5 km/h."],
  ["I walk 3 km at 6 km/h and then cycle 10 km at 20 km/h; how many minutes in total?", "Altogether it takes 60 minutes."],
  ["A bus travels 2 hours at 60 km/h, then 30 minutes at 40 km/h. How far does it go in total?", "Altogether the distance is 140 kilometres."],
  ["A cyclist rides 30 km in 1.5 hours, then 20 km in 1 hour. What is the average speed in m/s?", "The average speed over the whole trip is about 5.56 m/s."],
  ["A shop sells pens at $1.25 each. How much do 12 pens cost after a 15% discount?", "After 15% off, 12 pens cost $12.75."],
  ["How much do 3 notebooks at $4 each cost with 8% tax?", "With 8% added, 3 notebooks cost $12.96 in total."],
  ["铅笔每支2.5元，买8支打九折，一共多少钱？", "9折（按原价的90%付）后，8支一共是18元。"],
  ["一本书15元，买4本打八折，要付多少元？", "8折（按原价的80%付）后，4本一共是48元。"],
  ["每个杯子12元，买5个再加10%的税，一共多少元？", "加10%后，5个一共是66元。"],
  ["先以每小时60公里行驶120公里，再以每小时45公里行驶90公里，一共用了多少小时？", "一共用了4小时。"],
  ["先以每小时60公里行驶120公里，再以每小时45公里行驶90公里，平均速度是多少？", "全程的平均速度是每小时52.5公里（52.5 km/h）。"],
  ["小明先以每小时6公里走了3公里，然后以每小时20公里骑车10公里，一共用了多少分钟？", "一共用了60分钟。"],
  ["汽车先以每小时80公里行驶2小时，再以每小时60公里行驶1.5小时，一共行驶多少公里？", "全程一共250公里。"],
];

/** Tasks whose numbers no plan uses in full: the agent must decline, and its answer must hold no number. */
const DECLINED = [
  'Room 101: what is 2 plus 3?',
  'I have 3 cats and 4 dogs',
  '我有3只猫和4只狗',
  '第3组：2加5等于多少？',
  'Car A drives 120 km at 60 km/h, car B drives 90 km at 45 km/h. How far apart are they?',
  'A car drives 120 km at 60 km/h, then 90 km in 0 hours. What is the average speed?',
];

async function finalAnswer(task: string): Promise<string> {
  return (await runDemo(task)).last('final_answer')?.content ?? '';
}

describe('demo agent: a table of everyday tasks', () => {
  it('holds at least 60 tasks, about half of them Chinese', () => {
    const chinese = TASKS.filter(([task]) => /[\u4e00-\u9fff]/u.test(task)).length;
    expect(TASKS.length).toBeGreaterThanOrEqual(60);
    expect(chinese).toBeGreaterThanOrEqual(TASKS.length * 0.4);
    expect(TASKS.length - chinese).toBeGreaterThanOrEqual(TASKS.length * 0.4);
  });

  it.each(TASKS)('answers %s', async (task, expected) => {
    expect(await finalAnswer(task)).toBe(expected);
  });

  it.each(DECLINED)('declines %s without a number in the answer', async (task) => {
    const sink = await runDemo(task);
    expect(sink.steps.some((step) => step.kind === 'tool_call')).toBe(false);
    expect(sink.last('final_answer')?.content).not.toMatch(/\d/u);
  });

  it('says in a thought which numbers a partial plan would leave out', async () => {
    const sink = await runDemo('Room 101: what is 2 plus 3?');
    expect(sink.last('thought')?.content).toContain('leaves out 101');
  });

  it('makes each intermediate result of a compound expression its own tool call and observation', async () => {
    const sink = await runDemo('What is the square root of 144 plus 2 cubed?');
    expect(sink.steps.filter((step) => step.kind === 'observation').map((step) => step.content)).toEqual(['144^0.5 = 12', '2^3 = 8', '12 + 8 = 20']);
  });

  it('multiplies the count by the unit price first, then applies the discount to that total', async () => {
    const sink = await runDemo('A shop sells pens at $1.25 each. How much do 12 pens cost after a 15% discount?');
    expect(sink.steps.filter((step) => step.kind === 'observation').map((step) => step.content)).toEqual(['12 × 1.25 = 15', '15 − 15% = 12.75']);
  });

  it('gives each leg of a trip its own tool call, then the totals, and never averages the speeds', async () => {
    const sink = await runDemo('A car drives 120 km at 60 km/h, then 90 km at 45 km/h. What is the average speed?');
    expect(sink.steps.filter((step) => step.kind === 'observation').map((step) => step.content)).toEqual([
      '120 ÷ 60 = 2',
      '90 ÷ 45 = 2',
      '2 + 2 = 4',
      '120 + 90 = 210',
      '210 ÷ 4 = 52.5',
    ]);
  });
});

describe('demo agent: a correction acts through the whole multi-step chain', () => {
  it.each([
    ['a compound expression (first of three calls)', 'What is the square root of 144 plus 2 cubed?', '{"expression":"169 ^ 0.5"}', 'The answer is 21.'],
    ['a discount then tax', 'If a shirt costs $40 and is 25% off, and tax is 8%, what do I pay?', '{"expression":"50 - 25%"}', 'The price is $40.50.'],
    ['打八折再减20元', '一件衣服原价200元，先打八折，再减20元，现价多少元？', '{"expression":"300 * 80%"}', '价格是220元。'],
    ['a proportion', 'A recipe needs 250 g flour for 4 people. How much for 10 people?', '{"expression":"300 / 4"}', 'The amount is 750 grams.'],
    ['a percentage change', 'A price went from $80 to $100. What is the percentage change?', '{"expression":"120 - 80"}', 'That is an increase of 50%.'],
    ['a time in another unit', 'How long does it take to cycle 5 km at 12 km/h, in minutes?', '{"expression":"6 / 12"}', 'It takes 30 minutes.'],
    ['a Chinese compound expression', '144开方加上2的立方是多少？', '{"expression":"100 ^ 0.5"}', '答案是 18。'],
    ['a trip of two legs', 'A car drives 120 km at 60 km/h, then 90 km at 45 km/h. How long does the whole trip take?', '{"expression":"150 / 60"}', 'Altogether it takes 4.5 hours.'],
    ['an average speed over two legs', 'A car drives 120 km at 60 km/h, then 90 km at 45 km/h. What is the average speed?', '{"expression":"120 / 40"}', 'The average speed over the whole trip is 42 km/h.'],
    ['two legs answered in minutes', 'I walk 3 km at 6 km/h and then cycle 10 km at 20 km/h; how many minutes in total?', '{"expression":"4.5 / 6"}', 'Altogether it takes 75 minutes.'],
    ['a count times a unit price, then a discount', 'A shop sells pens at $1.25 each. How much do 12 pens cost after a 15% discount?', '{"expression":"20 * 1.25"}', 'The total is $21.25.'],
    ['买8支再打九折', '铅笔每支2.5元，买8支打九折，一共多少钱？', '{"expression":"10 * 2.5"}', '一共是22.50元。'],
    ['两段行程的平均速度', '先以每小时60公里行驶120公里，再以每小时45公里行驶90公里，平均速度是多少？', '{"expression":"120 / 40"}', '全程的平均速度是每小时42公里（42 km/h）。'],
  ])('re-runs every later step after the first tool call of %s is corrected', async (_, task, corrected, expected) => {
    const { second } = await runCorrected(task, 'tool_call', () => corrected);
    expect(second.last('final_answer')?.content).toBe(expected);
  });

  it.each([
    ['a discount then tax', 'If a shirt costs $40 and is 25% off, and tax is 8%, what do I pay?', '$40', '$60', '$48.60'],
    ['a count of items then tax', 'How much do 3 notebooks at $4 each cost with 8% tax?', '3 notebooks', '5 notebooks', '$21.60'],
    ['a proportion', 'A recipe needs 250 g flour for 4 people. How much for 10 people?', '250', '500', '1250 grams'],
    ['打八折再减20元', '一件衣服原价200元，先打八折，再减20元，现价多少元？', '200元', '300元', '220元'],
    ['a percentage change', 'A price went from $80 to $100. What is the percentage change?', '80', '50', '100%'],
    ['a trip of two legs', 'A car drives 120 km at 60 km/h, then 90 km at 45 km/h. How long does the whole trip take?', '90 kilometres', '180 kilometres', '6 hours'],
    ['两段行程', '先以每小时60公里行驶120公里，再以每小时45公里行驶90公里，一共用了多少小时？', '行驶90公里', '行驶180公里', '6小时'],
  ])('re-plans %s from a thought that restates a number', async (_, task, before, after, expected) => {
    const { second } = await runCorrected(task, 'thought', (text) => text.replace(before, after));
    expect(second.last('final_answer')?.content).toContain(expected);
  });
});
