import type { Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { readObservation } from '../../../src/agents/demo/chain-state.js';
import { findExpression, operatorWordsToSymbols, toToolExpression } from '../../../src/agents/demo/expression-finder.js';
import { analyseTask } from '../../../src/agents/demo/problem-analyser.js';
import { findQuantities } from '../../../src/agents/demo/quantities.js';
import { changedNumbers, noteReplacements, replaceNumbers } from '../../../src/agents/demo/revision.js';
import { chineseNumeralValue, englishNumberValue, normaliseProblemText } from '../../../src/agents/demo/text-normalize.js';

function firstCall(task: string): unknown {
  const plan = analyseTask(task, /[\u4e00-\u9fff]/u.test(task) ? 'zh' : 'en');
  return plan.kind === 'solve' ? plan.steps[0]?.call(undefined).input : plan.kind;
}

describe('problem text normalisation', () => {
  it('reads Chinese numerals before measure words and units', () => {
    expect(chineseNumeralValue('十五')).toBe(15);
    expect(chineseNumeralValue('一百零八')).toBe(108);
    expect(chineseNumeralValue('两千')).toBe(2000);
    expect(normaliseProblemText('小明有十二个苹果，吃了三个')).toBe('小明有12个苹果，吃了3个');
    expect(normaliseProblemText('打八折')).toBe('打8折');
    expect(normaliseProblemText('打七五折')).toBe('打75折');
    expect(normaliseProblemText('240千米，5千克')).toBe('240千米，5千克');
  });

  it('reads English number words as digits', () => {
    expect(normaliseProblemText('What is ten plus five?')).toBe('What is 10 plus 5?');
    expect(normaliseProblemText('Tom has twelve apples and buys a dozen more')).toBe('Tom has 12 apples and buys 12 more');
    expect(normaliseProblemText('fifteen percent of two hundred and forty')).toBe('15% of 240');
    expect(normaliseProblemText('Twenty-five times seventy seven')).toBe('25 times 77');
    expect(englishNumberValue('one million two hundred thousand and three')).toBe(1_200_003);
    expect(englishNumberValue('two dozen')).toBe(24);
  });

  it('reads "one box holds N" and "一个盒子有N" at the start of a clause as each box', () => {
    expect(normaliseProblemText('One box holds twelve pencils.')).toBe('Each box holds 12 pencils.');
    expect(normaliseProblemText('Tom has one box; one crate holds 5 boxes')).toBe('Tom has 1 box; each crate holds 5 boxes');
    expect(normaliseProblemText('一个盒子有十二个鸡蛋，三个盒子有多少个鸡蛋？')).toBe('每个盒子有12个鸡蛋，3个盒子有多少个鸡蛋？');
    expect(normaliseProblemText('他买了一个盒子有12个鸡蛋')).toBe('他买了一个盒子有12个鸡蛋');
  });

  it('reads a lone "one" where it counts or is an operand, and "N and a half"', () => {
    expect(normaliseProblemText('Tom has one apple; what is one plus one?')).toBe('Tom has 1 apple; what is 1 plus 1?');
    expect(normaliseProblemText('subtract one from ten')).toBe('subtract 1 from 10');
    expect(normaliseProblemText('two and a half hours')).toBe('2.5 hours');
  });

  it('reads Chinese numerals next to operator words, a lone 一 too', () => {
    expect(normaliseProblemText('一百减去三十七是多少？')).toBe('100减去37是多少？');
    expect(normaliseProblemText('一加一等于几？三乘以八')).toBe('1加1等于几？3乘以8');
  });

  it('leaves number words alone when they are not one number, and a lone "one"', () => {
    expect(normaliseProblemText('five six')).toBe('five six');
    expect(normaliseProblemText('Which one is bigger, one of them or someone else?')).toBe('Which one is bigger, one of them or someone else?');
    expect(normaliseProblemText('one hundred and one')).toBe('101');
    expect(englishNumberValue('hundred hundred')).toBeUndefined();
    expect(englishNumberValue('twenty twenty')).toBeUndefined();
  });

  it('leaves words that merely contain 一 alone', () => {
    expect(normaliseProblemText('一共有几个？一件衬衫')).toBe('一共有几个？一件衬衫');
  });

  it('turns full-width digits, 百分之N, "percent" and thousands separators into plain forms', () => {
    expect(normaliseProblemText('２４０的百分之十五')).toBe('240的15%');
    expect(normaliseProblemText('15 percent of 1,250,000')).toBe('15% of 1250000');
    expect(normaliseProblemText('两个半小时')).toBe('2.5小时');
  });
});

describe('quantities', () => {
  it('attaches units, currencies, percentages and counted nouns to numbers', () => {
    const [distance, time] = findQuantities('A train travels 180 km in 2.5 hours');
    expect(distance).toMatchObject({ value: 180, unit: { symbol: 'km' } });
    expect(time).toMatchObject({ value: 2.5, unit: { symbol: 'h' } });
    expect(findQuantities('costs $40 and is 25% off')).toMatchObject([{ value: 40, currency: '$' }, { value: 25, percent: true }]);
    expect(findQuantities('小明有12个苹果')).toMatchObject([{ value: 12, measure: '个', noun: '苹果' }]);
    expect(findQuantities('Tom has 12 apples')).toMatchObject([{ value: 12, noun: 'apples' }]);
  });

  it('recognises rates written either way round', () => {
    expect(findQuantities('每小时行驶60公里')).toMatchObject([{ value: 60, unit: { symbol: 'km' }, per: { unit: { symbol: 'h' } } }]);
    expect(findQuantities('Each box holds 12 pencils')).toMatchObject([{ value: 12, per: { noun: 'box' } }]);
    expect(findQuantities('drives at 60 km per hour for 3 hours')).toMatchObject([{ unit: { symbol: 'km/h' } }, { unit: { symbol: 'h' } }]);
  });

  it('does not read the preposition "in" as inches', () => {
    expect(findQuantities('12 in each box')[0]?.unit).toBeUndefined();
  });
});

describe('expressions in text', () => {
  it('finds the written expression and ignores dates and asides', () => {
    expect(findExpression('What is 12*(3+4)?')).toBe('12*(3+4)');
    expect(findExpression('so I need 180 ÷ 2.5, in km/h.')).toBe('180 ÷ 2.5');
    expect(findExpression('between 2024-01-01 and 2024-03-01')).toBeUndefined();
    expect(findExpression('buys 5 (3 + 4)')).toBe('(3 + 4)');
  });

  it('turns operator words into symbols and writes tool input in ASCII', () => {
    expect(findExpression(operatorWordsToSymbols('What is 12 times 7 plus 1?'))).toBe('12 * 7 + 1');
    expect(findExpression(operatorWordsToSymbols('12乘以7减3'))).toBe('12*7-3');
    expect(toToolExpression('(15+27)×3')).toBe('(15 + 27) * 3');
  });
});

describe('problem analyser', () => {
  it.each([
    ['What is 12*(3+4)?', { expression: '12 * (3 + 4)' }],
    ['What is 15% of 240?', { expression: '240 * 15%' }],
    ['30 is what percent of 120?', { expression: '30 / 120 * 100' }],
    ['A shirt costs $40 and is 25% off; what is the price?', { expression: '40 - 25%' }],
    ['A meal costs $50 plus 8% tax', { expression: '50 + 8%' }],
    ['A runner covers 5 km in 25 minutes. How fast is she?', { expression: '5 / (25 / 60)' }],
    ['How long does it take to drive 150 km at 60 km/h?', { expression: '150 / 60' }],
    ['How many seconds are in a day?', { value: 1, from: 'day', to: 's' }],
    ['Tom has 12 apples, Jerry has 5. How many more apples does Tom have?', { expression: '12 - 5' }],
    ['A ticket costs $12. How much do 5 tickets cost?', { expression: '12 * 5' }],
    ['What date is 30 days after 2024-01-01?', { operation: 'add_days', start: '2024-01-01', days: 30 }],
    ['苹果每斤5元，买3斤要多少钱？', { expression: '5 * 3' }],
    ['5公里等于多少英里？', { value: 5, from: 'km', to: 'mi' }],
  ])('plans %s', (task, input) => {
    expect(firstCall(task)).toEqual(input);
  });

  it('answers non-numeric tasks with advice and unrelated numbers with an honest "unsure"', () => {
    expect(analyseTask('Explain photosynthesis', 'en').kind).toBe('advice');
    expect(analyseTask('I have 3 cats and 4 dogs', 'en').thought).toContain('3 and 4');
  });
});

describe('reading corrections', () => {
  it('finds the numbers a user changed', () => {
    expect(changedNumbers('starts with 12 apples; count 12 − 3 + 5', 'starts with 20 apples; count 12 − 3 + 5')).toEqual(new Map([['12', '20']]));
    expect(changedNumbers('buys 5', 'buys 5 and then 7 more')).toEqual(new Map());
    expect(changedNumbers('12 and 3', 'it was 20 and 3, after all 3')).toEqual(new Map([['12', '20']]));
  });

  it('reads replacements from notes in English and Chinese', () => {
    expect(noteReplacements('use 20 instead of 12')).toEqual(new Map([['12', '20']]));
    expect(noteReplacements('12 should be 20')).toEqual(new Map([['12', '20']]));
    expect(noteReplacements('把12改成20')).toEqual(new Map([['12', '20']]));
    expect(noteReplacements('是二十个不是十二个')).toEqual(new Map([['12', '20']]));
    expect(noteReplacements(undefined)).toEqual(new Map());
  });

  it('replaces whole numbers only', () => {
    expect(replaceNumbers('12 apples, 120 pears, 1.2 kg', new Map([['12', '20']]))).toBe('20 apples, 120 pears, 1.2 kg');
  });

  it('reads an observation’s value from its result, or from the text after "="', () => {
    const base: Step = { stepId: 's', parentId: null, index: 3, kind: 'observation', status: 'completed', content: '12 × 7 = 84', revision: 0 };
    expect(readObservation({ ...base, result: { expression: '12 * 7', value: 84 } })).toEqual({ value: { value: 84 } });
    expect(readObservation({ ...base, result: { error: 'Division by zero' } })).toEqual({ error: 'Division by zero' });
    expect(readObservation({ ...base, status: 'corrected', content: '12 × 7 = 90' })).toEqual({ value: { value: 90 } });
    expect(readObservation({ ...base, status: 'corrected', content: 'It is 1,250 really' })).toEqual({ value: { value: 1250 } });
    expect(readObservation({ ...base, status: 'corrected', content: '2024-01-01 + 30 days = 2024-02-01' })).toEqual({ value: { date: '2024-02-01' } });
    expect(readObservation({ ...base, status: 'corrected', content: 'unknown' })).toEqual({ unreadable: 'unknown' });
  });
});
