import { describe, expect, it } from 'vitest';
import { calculatorTool } from '../../src/tools/calculator.js';
import { ExpressionError } from '../../src/tools/expression/index.js';
import { ToolError } from '../../src/tools/tool.js';

const signal = new AbortController().signal;

async function failure(expression: string): Promise<ExpressionError> {
  try {
    await calculatorTool.execute({ expression }, signal);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toBeInstanceOf(ExpressionError);
    return error as ExpressionError;
  }
  throw new Error(`"${expression}" evaluated without an error`);
}

describe('calculator: errors', () => {
  it('says an empty or blank expression is empty', async () => {
    expect((await failure('')).message).toBe('Expression is empty');
    expect((await failure('   \t ')).message).toBe('Expression is empty');
  });

  it('names an unexpected closing bracket and its position', async () => {
    const error = await failure('(1 + 2))');
    expect(error.message).toBe("Unexpected ')' at position 8");
    expect(error.position).toBe(8);
    expect((await failure('12 * )')).message).toBe("Unexpected ')' at position 6");
  });

  it('names a bracket that is never closed', async () => {
    expect((await failure('2 * (3 + 4')).message).toBe("Missing ')' to close the '(' at position 5");
  });

  it('names an operator with nothing before it', async () => {
    expect((await failure('* 3')).message).toBe("Unexpected '*' at position 1");
    expect((await failure('2 + * 3')).message).toBe("Unexpected '*' at position 5");
  });

  it('says which operator the expression ends after', async () => {
    expect((await failure('2 +')).message).toBe("Unexpected end of expression: a number is missing after '+' at position 3");
    expect((await failure('(')).message).toBe("Unexpected end of expression: a number is missing after '(' at position 1");
  });

  it('names two numbers without an operator between them', async () => {
    expect((await failure('3 4')).message).toBe("Unexpected number '4' at position 3 (an operator is missing before it)");
  });

  it('names an unknown character, letters included', async () => {
    expect((await failure('2 + x')).message).toBe("Unexpected character 'x' at position 5");
    expect((await failure('2 $ 3')).message).toBe("Unexpected '$' at position 3");
    expect((await failure('1 + 🙂')).message).toBe("Unexpected '🙂' at position 5");
  });

  it('explains thousands separators', async () => {
    expect((await failure('1,000 + 1')).message).toBe("Unexpected ',' at position 2 (write numbers without thousands separators)");
  });

  it('names a malformed number', async () => {
    expect((await failure('1.2.3 + 1')).message).toBe("Malformed number '1.2.3' at position 1");
    expect((await failure('.')).message).toBe("Unexpected '.' at position 1");
  });

  it('refuses a second percent sign', async () => {
    expect((await failure('50%%')).message).toBe("Unexpected '%' at position 4");
  });

  it('reports division by zero, also through a negative power of zero', async () => {
    expect((await failure('1 / 0')).message).toBe('Division by zero at position 3');
    expect((await failure('5 / (2 - 2)')).message).toBe('Division by zero at position 3');
    expect((await failure('0 ^ -1')).message).toBe('Division by zero at position 3: 0 has no negative power');
  });

  it('reports numbers and results beyond the range of a double', async () => {
    expect((await failure('1e400')).message).toBe("Number too large at position 1: '1e400' exceeds about 1.8e308");
    expect((await failure('10 ^ 400')).message).toBe('Result too large at position 4: it exceeds about 1.8e308');
    expect((await failure('1e308 * 10')).message).toBe('Result too large at position 7: it exceeds about 1.8e308');
  });

  it('reports a negative number raised to a fractional power as having no real result', async () => {
    expect((await failure('(-8) ^ 0.5')).message).toBe('No real result at position 6: a negative number raised to a fractional power');
  });

  it('refuses nesting deeper than it can parse safely instead of overflowing the stack', async () => {
    expect((await failure(`${'('.repeat(300)}1${')'.repeat(300)}`)).message).toBe('Expression nests too deeply (more than 200 levels)');
    expect((await failure(`${'-'.repeat(500)}1`)).message).toBe('Expression nests too deeply (more than 200 levels)');
  });

  it('refuses an expression over the length limit and input that is not an expression', async () => {
    expect((await failure('1+'.repeat(600) + '1')).message).toBe('Expression is too long: at most 1000 characters');
    await expect(calculatorTool.execute({ expression: 42 } as never, signal)).rejects.toThrow('The calculator needs { "expression": "<arithmetic>" }');
  });
});
