import { DEFAULT_MAX_SUBAGENT_DEPTH } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { problemsOf } from './support/problems.js';

describe('INTERTHOUGHT_MAX_SUBAGENT_DEPTH', () => {
  it('is the protocol package’s default depth when unset', () => {
    expect(loadConfig({}).maxSubagentDepth).toBe(DEFAULT_MAX_SUBAGENT_DEPTH);
  });

  it('reads a whole number of levels', () => {
    expect(loadConfig({ INTERTHOUGHT_MAX_SUBAGENT_DEPTH: '1' }).maxSubagentDepth).toBe(1);
    expect(loadConfig({ INTERTHOUGHT_MAX_SUBAGENT_DEPTH: '5' }).maxSubagentDepth).toBe(5);
  });

  it('refuses anything else, naming the variable', () => {
    for (const value of ['0', '17', 'deep']) expect(problemsOf({ INTERTHOUGHT_MAX_SUBAGENT_DEPTH: value })[0]?.variable).toBe('INTERTHOUGHT_MAX_SUBAGENT_DEPTH');
  });
});
