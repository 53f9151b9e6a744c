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
  const opened: string[] = [];
  test.answer = async (request) => {
    if (request.type !== 'session.create') return undefined;
    return { type: 'session.created', session: { sessionId: 's-new', task: 'task' in request ? String(request.task) : '', agent: 'demo', status: 'running', revision: 0, createdAt: new Date().toISOString() } };
  };
  const mounted = mountWithApp(HomePage, { openSession: (sessionId: string) => void opened.push(sessionId) }, test);
  cleanup = mounted.destroy;
  return { target: mounted.target, opened };
}

function typeTask(target: HTMLElement, task: string) {
  const box = target.querySelector<HTMLTextAreaElement>('textarea[name="task"]')!;
  box.value = task;
  box.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

describe('HomePage: asking before tools run', () => {
  it('starts a session that asks before every tool call when the box is ticked', async () => {
    const test = createTestApp();
    const { target, opened } = render(test);
    const ask = target.querySelector<HTMLInputElement>('input[type="checkbox"][name="approve"]')!;
    expect(ask.closest('label')?.textContent).toContain('Ask me before each tool runs');
    expect(ask.checked).toBe(false);
    ask.click();
    flushSync();
    typeTask(target, 'What is 15% of 240?');
    buttonNamed(target, /^Start/)!.click();
    await settle();
    expect(test.requests).toEqual([{ type: 'session.create', task: 'What is 15% of 240?', options: { approve: 'all' } }]);
    expect(opened).toEqual(['s-new']);
  });

  it('leaves the server’s policy alone when it is not ticked', async () => {
    const test = createTestApp();
    const { target } = render(test);
    typeTask(target, 'What is 15% of 240?');
    buttonNamed(target, /^Start/)!.click();
    await settle();
    expect(test.requests).toEqual([{ type: 'session.create', task: 'What is 15% of 240?' }]);
  });

  it('says it in Chinese', () => {
    const { target } = render(createTestApp('zh'));
    expect(target.querySelector('input[name="approve"]')?.closest('label')?.textContent).toContain('每次调用工具前先问我');
  });

  it('does not offer it when the server said it cannot ask', () => {
    const test = createTestApp();
    (test.app.client as { hello: unknown }).hello = { type: 'hello', connectionId: 'c-1', capabilities: ['corrections', 'session-list'] };
    const { target } = render(test);
    expect(target.querySelector('input[name="approve"]')).toBeNull();
  });
});
