import type { ToolListing } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import ToolList from '$lib/home/ToolList.svelte';
import { createTestApp, mountWithApp } from '../../support/app.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

const TOOLS: ToolListing[] = [
  { name: 'calculator', description: 'Evaluate an arithmetic expression.', source: 'builtin', inputSchema: {}, readOnly: true },
  { name: 'mcp__files__write_note', description: 'Write a note to disk.', source: 'mcp', server: 'files', inputSchema: {}, readOnly: false },
];

function render(locale: 'en' | 'zh' = 'en'): HTMLElement {
  const mounted = mountWithApp(ToolList, { tools: TOOLS }, createTestApp(locale));
  cleanup = mounted.destroy;
  return mounted.target;
}

describe('ToolList', () => {
  it('lists every tool, marks those of MCP servers with their server, and those that ask first', () => {
    const target = render();
    expect(target.querySelector('summary')?.textContent?.replace(/\s+/g, ' ').trim()).toBe('Tools the server offers agents (2) · 1 from MCP servers');
    const calculator = target.querySelector('[data-tool="calculator"]')!;
    expect(calculator.querySelectorAll('.badge')).toHaveLength(0);
    const note = target.querySelector('[data-tool="mcp__files__write_note"]')!;
    expect(Array.from(note.querySelectorAll('.badge'), (badge) => badge.textContent)).toEqual(['MCP · files', 'asks first']);
    expect(note.querySelector('.description')?.textContent).toBe('Write a note to disk.');
  });

  it('speaks Chinese', () => {
    const target = render('zh');
    expect(target.querySelector('summary')?.textContent).toContain('服务器提供给智能体的工具（2）');
    expect(target.querySelector('[data-tool="mcp__files__write_note"] .asks')?.textContent).toBe('先询问');
  });
});
