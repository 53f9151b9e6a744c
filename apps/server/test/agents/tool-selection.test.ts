import { describe, expect, it } from 'vitest';
import { ToolSelection } from '../../src/agents/tool-selection.js';
import { createTestTools } from './openai/support/test-tools.js';

describe('ToolSelection', () => {
  it('matches names exactly and globs by their stars, nothing else', () => {
    const selection = new ToolSelection(['calculator', 'mcp__github__*']);
    expect(selection.allows('calculator')).toBe(true);
    expect(selection.allows('calculator2')).toBe(false);
    expect(selection.allows('mcp__github__create_issue')).toBe(true);
    expect(selection.allows('mcp__gitlab__create_issue')).toBe(false);
    expect(new ToolSelection([]).allows('calculator')).toBe(false);
    expect(new ToolSelection(['*']).allows('anything-at-all')).toBe(true);
  });

  it('gives a run a toolbox that lists, finds and checks only the selected tools', () => {
    const { tools } = createTestTools();
    const [first, ...others] = tools.list();
    if (first === undefined || others.length === 0) throw new Error('the test tools changed');
    const toolbox = new ToolSelection([first.name]).of(tools);
    expect(toolbox.list().map((tool) => tool.name)).toEqual([first.name]);
    expect(toolbox.get(others[0]!.name)).toBeUndefined();
    expect(toolbox.checkInput(others[0]!.name, '{}')).toMatchObject({ ok: false, message: `The tool "${others[0]!.name}" is not one this agent may call.` });
  });
});
