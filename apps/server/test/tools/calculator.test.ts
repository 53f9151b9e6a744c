import { describe, expect, it } from 'vitest';
import { calculatorTool } from '../../src/tools/calculator.js';

const signal = new AbortController().signal;

async function value(expression: string): Promise<number> {
  const { output } = await calculatorTool.execute({ expression }, signal);
  return (output as { value: number }).value;
}

describe('calculator: arithmetic', () => {
  it('applies precedence: × and ÷ before + and −, ^ before both', async () => {
    expect(await value('2 + 3 * 4')).toBe(14);
    expect(await value('10 - 6 / 2')).toBe(7);
    expect(await value('2 * 3 ^ 2')).toBe(18);
    expect(await value('1 + 2 ^ 3 * 2')).toBe(17);
  });

  it('associates − and ÷ to the left', async () => {
    expect(await value('10 - 4 - 3')).toBe(3);
    expect(await value('100 / 10 / 5')).toBe(2);
  });

  it('associates ^ to the right', async () => {
    expect(await value('2 ^ 3 ^ 2')).toBe(512);
    expect(await value('2 ** 3 ** 2')).toBe(512);
  });

  it('reads unary minus and plus, binding looser than ^', async () => {
    expect(await value('-5 + 3')).toBe(-2);
    expect(await value('-(-3)')).toBe(3);
    expect(await value('--4')).toBe(4);
    expect(await value('+7')).toBe(7);
    expect(await value('-2 ^ 2')).toBe(-4);
    expect(await value('(-2) ^ 2')).toBe(4);
    expect(await value('2 ^ -1')).toBe(0.5);
    expect(await value('3 * -2')).toBe(-6);
  });

  it('evaluates brackets first, nested and implicit multiplication before a bracket', async () => {
    expect(await value('12 * (3 + 4)')).toBe(84);
    expect(await value('((1 + 2) * (3 + 4)) / 7')).toBe(3);
    expect(await value('2(3 + 4)')).toBe(14);
    expect(await value('(2)(5)')).toBe(10);
  });

  it('reads decimals, leading dots and exponents', async () => {
    expect(await value('2.5 * 4')).toBe(10);
    expect(await value('.5 + .25')).toBe(0.75);
    expect(await value('1.5e3 / 3')).toBe(500);
  });

  it('removes floating-point noise but keeps integers exact', async () => {
    expect(await value('0.1 + 0.2')).toBe(0.3);
    expect(await value('1 / 3')).toBe(0.333333333333);
    expect(await value('2 ^ 53 + 1')).toBe(2 ** 53);
    expect(await value('0.1 * 3 - 0.3')).toBe(0);
    expect(await value('1e15 + 1 - 1e15')).toBe(1);
    expect(Object.is(await value('-0 * 5'), 0)).toBe(true);
  });

  it('reads a percentage as hundredths', async () => {
    expect(await value('15%')).toBe(0.15);
    expect(await value('200 * 15%')).toBe(30);
    expect(await value('240 * 15 %')).toBe(36);
    expect(await value('50% / 2')).toBe(0.25);
    expect(await value('(10 + 5)%')).toBe(0.15);
  });

  it('reads a percentage right after + or − as a share of the left side', async () => {
    expect(await value('200 + 10%')).toBe(220);
    expect(await value('40 - 25%')).toBe(30);
    expect(await value('100 + 50% * 2')).toBe(101);
    expect(await value('80 - 20% - 10%')).toBe(57.6);
  });

  it('accepts Unicode and full-width operators, digits and brackets', async () => {
    expect(await value('12 × 7')).toBe(84);
    expect(await value('84 ÷ 12')).toBe(7);
    expect(await value('10 − 4')).toBe(6);
    expect(await value('（１５＋２７）×３')).toBe(126);
    expect(await value('１０％ × ２００')).toBe(20);
  });

  it('shows the expression as on paper and reports { expression, value }', async () => {
    const result = await calculatorTool.execute({ expression: '12*(3+4)' }, signal);
    expect(result.text).toBe('12 × (3 + 4) = 84');
    expect(result.output).toEqual({ expression: '12*(3+4)', value: 84 });
    expect((await calculatorTool.execute({ expression: '12 * 7' }, signal)).text).toBe('12 × 7 = 84');
    expect((await calculatorTool.execute({ expression: '-2^-1 - 1' }, signal)).text).toBe('−2^−1 − 1 = -1.5');
    expect((await calculatorTool.execute({ expression: '40 - 25%' }, signal)).text).toBe('40 − 25% = 30');
  });

  it('refuses to run once its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(calculatorTool.execute({ expression: '1 + 1' }, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});
