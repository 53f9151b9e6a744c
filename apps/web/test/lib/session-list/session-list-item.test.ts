import type { SessionInfo } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import SessionListItem from '$lib/session-list/SessionListItem.svelte';
import { buttonNamed, createTestApp, mountWithApp, settle, testHello, type TestApp } from '../../support/app.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

const session: SessionInfo = { sessionId: 's/1', task: 'What is 15% of 240?', agent: 'demo', status: 'completed', revision: 0, createdAt: new Date().toISOString() };

function render(test: TestApp, current = false, shown: SessionInfo = session) {
  const mounted = mountWithApp(SessionListItem, { session: shown, current }, test);
  cleanup = mounted.destroy;
  return mounted.target;
}

describe('SessionListItem', () => {
  it('offers a delete button beside the link, named after the session, in the tab order', () => {
    const target = render(createTestApp());
    const link = target.querySelector('a')!;
    expect(link.getAttribute('href')).toBe('/sessions/s%2F1');
    const button = buttonNamed(target, /^Delete session: What is 15% of 240\?$/)!;
    expect(button).toBeDefined();
    expect(link.contains(button)).toBe(false);
    expect(button.tabIndex).toBe(0);
    expect(button.getAttribute('aria-haspopup')).toBe('dialog');
  });

  it('says how many sub-agents run in the session this tab follows, in either language', async () => {
    for (const [language, label] of [['en', '1 sub-agent running'], ['zh', '1 个子代理运行中']] as const) {
      const test = createTestApp(language);
      const target = render(test, true, { ...session, status: 'running' });
      expect(target.querySelector('[data-subagents-running]')).toBeNull();
      test.app.sessionList.setSubagentsRunning('s/1', 1);
      await settle();
      expect(target.querySelector('[data-subagents-running]')?.textContent).toBe(label);
      test.app.sessionList.setSubagentsRunning('s/1', 0);
      await settle();
      expect(target.querySelector('[data-subagents-running]')).toBeNull();
      cleanup?.();
      cleanup = undefined;
    }
  });

  it('marks a fork, naming the step it was forked at, in either language; its source is not marked', () => {
    for (const [language, short, long] of [
      ['en', 'fork · step 6', 'Fork of “What is 15% of 240?” at step 6'],
      ['zh', '分叉 · 第 6 步', '分叉自“What is 15% of 240?”的第 6 步'],
    ] as const) {
      const target = render(createTestApp(language), false, { ...session, sessionId: 'f1', forkedFrom: { sessionId: 's/1', stepId: '-2UxOxYqN2vHPA3uvkTl5', index: 5 } });
      const mark = target.querySelector<HTMLElement>('[data-fork]')!;
      expect(mark.querySelector('[data-fork-short]')?.textContent).toBe(short);
      expect(mark.title).toBe(long);
      expect(target.querySelector('a')!.title).toContain(long);
      expect(target.textContent).not.toContain('-2UxOxYqN2vHPA3uvkTl5');
      cleanup?.();
      cleanup = undefined;
    }
    expect(render(createTestApp()).querySelector('[data-fork]')).toBeNull();
  });

  it('marks an older fork without its step as a fork all the same', () => {
    const target = render(createTestApp(), false, { ...session, sessionId: 'f2', forkedFrom: { sessionId: 'gone', stepId: 'x' } });
    expect(target.querySelector('[data-fork] [data-fork-short]')?.textContent).toBe('fork');
  });

  it('asks for confirmation instead of deleting right away', async () => {
    const test = createTestApp();
    const target = render(test, true);
    buttonNamed(target, /^Delete session/)!.click();
    await settle();
    expect(test.app.deletion.asking).toEqual({ sessionId: 's/1', task: 'What is 15% of 240?' });
    expect(test.requests).toEqual([]);
  });

  it('names the button in Chinese', () => {
    const target = render(createTestApp('zh'));
    expect(buttonNamed(target, /^删除会话：What is 15% of 240\?$/)).toBeDefined();
  });

  it('says in words, not only by its dot, that a session waits for the user', () => {
    const test = createTestApp();
    const mounted = mountWithApp(SessionListItem, { session: { ...session, status: 'waiting' as const }, current: false }, test);
    cleanup = mounted.destroy;
    const link = mounted.target.querySelector('a')!;
    expect(link.querySelector('.dot')?.getAttribute('aria-label')).toBe('Waiting for you');
    expect(link.querySelector('.dot')?.classList.contains('status-waiting')).toBe(true);
    expect(link.querySelector('.meta')?.textContent?.replace(/\s+/g, ' ').trim()).toMatch(/^Waiting for you · demo · /);
  });

  it('names a status it does not know by its name', () => {
    const test = createTestApp('zh');
    const mounted = mountWithApp(SessionListItem, { session: { ...session, status: 'hibernating' as never }, current: false }, test);
    cleanup = mounted.destroy;
    expect(mounted.target.querySelector('.dot')?.getAttribute('aria-label')).toBe('hibernating');
  });

  it('tells whoever may decide that a waiting session waits for them, and a viewer only that it waits for a decision', () => {
    const waiting: SessionInfo = { ...session, status: 'waiting' };
    expect(render(createTestApp(), false, waiting).querySelector('.waiting-label')?.textContent).toBe('Waiting for you');
    cleanup?.();
    const viewer = createTestApp('en', { hello: testHello({ share: { sessionId: 's/1', shareId: 'sh_1', role: 'viewer' } }) });
    const target = render(viewer, false, waiting);
    expect(target.querySelector('.waiting-label')?.textContent).toBe('Waiting for a decision');
    expect(target.querySelector('.dot')?.getAttribute('aria-label')).toBe('Waiting for a decision');
  });
});
