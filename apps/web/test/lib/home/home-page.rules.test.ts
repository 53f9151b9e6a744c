import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import HomePage from '$lib/home/HomePage.svelte';
import { buttonNamed, createTestApp, mountWithApp, settle, type TestApp } from '../../support/app.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

function render(test: TestApp) {
  test.answer = async (request) => {
    if (request.type !== 'session.create') return undefined;
    return { type: 'session.created', session: { sessionId: 's-new', task: 'task', agent: 'demo', status: 'running', revision: 0, createdAt: new Date().toISOString() } };
  };
  const mounted = mountWithApp(HomePage, { openSession: () => undefined }, test);
  cleanup = mounted.destroy;
  const target = mounted.target;
  const box = target.querySelector<HTMLTextAreaElement>('textarea[name="task"]')!;
  box.value = 'What is 15% of 240?';
  box.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
  target.querySelector<HTMLButtonElement>('[data-action="rules-and-breakpoints"]')!.click();
  flushSync();
  return target;
}

function change(element: HTMLInputElement | HTMLSelectElement, value: string, event: 'input' | 'change' = 'change') {
  element.value = value;
  element.dispatchEvent(new Event(event, { bubbles: true }));
  flushSync();
}

describe('HomePage: rules and breakpoints (PROTOCOL.md §25.4, §25.5)', () => {
  it('sends the rules written in the editor, with an argument condition and the default', async () => {
    const test = createTestApp();
    const target = render(test);
    change(target.querySelector<HTMLSelectElement>('select[name="rules-preset"]')!, 'custom');
    const row = target.querySelector<HTMLElement>('[data-rule-row="0"]')!;
    change(row.querySelector<HTMLInputElement>('input[name="rule-tool"]')!, 'write_file', 'input');
    change(row.querySelector<HTMLSelectElement>('select[name="rule-decision"]')!, 'allow');
    change(row.querySelector<HTMLSelectElement>('select[name="rule-test"]')!, 'under');
    change(target.querySelector<HTMLInputElement>('[data-rule-row="0"] input[name="rule-value"]')!, '/workspace', 'input');
    buttonNamed(target, /^Add a rule/)!.click();
    flushSync();
    change(target.querySelector<HTMLInputElement>('[data-rule-row="1"] input[name="rule-tool"]')!, 'write_file', 'input');
    change(target.querySelector<HTMLSelectElement>('[data-rule-row="1"] select[name="rule-decision"]')!, 'deny');
    change(target.querySelector<HTMLSelectElement>('select[name="rules-default"]')!, 'allow');
    buttonNamed(target, /^Start/)!.click();
    await settle();
    expect(test.requests).toEqual([
      {
        type: 'session.create',
        task: 'What is 15% of 240?',
        options: {
          approve: {
            rules: [
              { tool: 'write_file', decision: 'allow', when: { path: { under: '/workspace' } } },
              { tool: 'write_file', decision: 'deny' },
            ],
            default: 'allow',
          },
        },
      },
    ]);
  });

  it('sends nothing and names the row while a rule lacks its tool', async () => {
    const test = createTestApp();
    const target = render(test);
    change(target.querySelector<HTMLSelectElement>('select[name="rules-preset"]')!, 'custom');
    buttonNamed(target, /^Start/)!.click();
    await settle();
    expect(test.requests).toEqual([]);
    expect(target.querySelector('[data-draft-problems]')?.textContent).toContain('Rule 1: name a tool');
  });

  it('sends step-by-step breakpoints, or a breakpoint before a tool', async () => {
    const test = createTestApp();
    const target = render(test);
    target.querySelector<HTMLInputElement>('input[name="breakpoint-mode"][value="some"]')!.click();
    flushSync();
    change(target.querySelector<HTMLInputElement>('input[name="breakpoint-tool"]')!, 'calculator', 'input');
    buttonNamed(target, /^Start/)!.click();
    await settle();
    expect(test.requests).toEqual([{ type: 'session.create', task: 'What is 15% of 240?', options: { breakpoints: [{ kind: 'tool_call', tool: 'calculator' }] } }]);
  });

  it('says it in Chinese', () => {
    const target = render(createTestApp('zh'));
    expect(target.querySelector('[data-rules-editor] legend')?.textContent).toBe('工具运行之前');
    expect(target.querySelector('[data-breakpoints-editor]')?.textContent).toContain('逐步执行');
  });
});
