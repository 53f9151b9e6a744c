import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { problemsOf } from './support/problems.js';

describe('INTERTHOUGHT_PRICES', () => {
  it('is unset by default: calls are recorded with their tokens only', () => {
    expect(loadConfig({}).prices).toBeUndefined();
    expect(loadConfig({ INTERTHOUGHT_PRICES: '  ' }).prices).toBeUndefined();
  });

  it('reads US dollars per million tokens by model, the cached price optional', () => {
    const prices = loadConfig({ INTERTHOUGHT_PRICES: '{"gpt-4o-mini":{"input":0.15,"output":0.6,"cached":0.075},"local":{"input":0,"output":0}}' }).prices;
    expect(prices).toEqual(
      new Map([
        ['gpt-4o-mini', { input: 0.15, output: 0.6, cached: 0.075 }],
        ['local', { input: 0, output: 0 }],
      ]),
    );
  });

  it('refuses JSON that does not parse, with an example of what it takes', () => {
    const [problem] = problemsOf({ INTERTHOUGHT_PRICES: '{gpt-4o: 1}' });
    expect(problem!.variable).toBe('INTERTHOUGHT_PRICES');
    expect(problem!.problem).toContain('must be JSON such as {"gpt-4o-mini":{"input":0.15,"output":0.6,"cached":0.075}}');
  });

  it('refuses a value that is not an object of models', () => {
    expect(problemsOf({ INTERTHOUGHT_PRICES: '[1,2]' })[0]!.problem).toContain('must be a JSON object of model names to prices');
    expect(problemsOf({ INTERTHOUGHT_PRICES: '"cheap"' })[0]!.problem).toContain('got "cheap"');
  });

  it('names every bad model and field at once', () => {
    const problems = problemsOf({
      INTERTHOUGHT_PRICES: JSON.stringify({ a: { input: -1, output: 1 }, b: { input: 1 }, c: { input: 1, output: '2' }, d: { input: 1, output: 1, cache: 1 }, e: 3, '': { input: 1, output: 1 } }),
    }).map((entry) => entry.problem);
    expect(problems).toEqual([
      'model "a": "input" must be a number from 0 to 1,000,000 (US dollars per million tokens), got -1',
      'model "b" needs "output", in US dollars per million tokens',
      'model "c": "output" must be a number from 0 to 1,000,000 (US dollars per million tokens), got "2"',
      'model "d" has an unknown field "cache": use "input", "output" and optionally "cached"',
      'model "e" must have an object { "input": …, "output": …, "cached"?: … } of US dollars per million tokens, got 3',
      'has an empty model name: name each model as sessions ask for it (options.model or INTERTHOUGHT_MODEL)',
    ]);
  });
});

describe('INTERTHOUGHT_MAX_TOKENS_PER_SESSION', () => {
  it('is unset by default: no budget', () => {
    expect(loadConfig({}).maxTokensPerSession).toBeUndefined();
  });

  it('reads a whole number of tokens', () => {
    expect(loadConfig({ INTERTHOUGHT_MAX_TOKENS_PER_SESSION: '200000' }).maxTokensPerSession).toBe(200_000);
  });

  it('refuses anything else', () => {
    expect(problemsOf({ INTERTHOUGHT_MAX_TOKENS_PER_SESSION: '0' })).toEqual([
      { variable: 'INTERTHOUGHT_MAX_TOKENS_PER_SESSION', problem: 'must be a whole number from 1 to 1000000000000, or unset, got "0"' },
    ]);
    expect(problemsOf({ INTERTHOUGHT_MAX_TOKENS_PER_SESSION: '10k' })[0]!.variable).toBe('INTERTHOUGHT_MAX_TOKENS_PER_SESSION');
  });
});
