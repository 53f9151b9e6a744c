import { describe, expect, it } from 'vitest';
import { mcpToolName, TOOL_NAME_MAX } from '../../../src/tools/mcp/tool-names.js';

describe('mcpToolName', () => {
  it('names a tool mcp__<server>__<tool>', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
  });

  it('replaces characters function names do not allow', () => {
    expect(mcpToolName('my server', 'files.read/all')).toBe('mcp__my_server__files_read_all');
    expect(mcpToolName('名前', 'ok-1')).toBe('mcp______ok-1');
  });

  it('cuts a long name to 64 characters, ending in a tag that keeps two long names apart', () => {
    const long = 'a'.repeat(80);
    const first = mcpToolName('server', `${long}_one`);
    const second = mcpToolName('server', `${long}_two`);
    expect(first).toHaveLength(TOOL_NAME_MAX);
    expect(first).toMatch(/^mcp__server__a+_[0-9a-f]{8}$/);
    expect(first).not.toBe(second);
    expect(mcpToolName('server', `${long}_one`)).toBe(first);
  });

  it('tags a name another tool already has', () => {
    const taken = new Set(['mcp__s__a_b']);
    const name = mcpToolName('s', 'a.b', (candidate) => taken.has(candidate));
    expect(name).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
  });
});
