import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionController } from '$lib/session-page/session-controller.svelte.js';
import SessionHeader from '$lib/session-page/SessionHeader.svelte';
import { buttonNamed, createTestApp, mountWithApp, settle, type TestApp } from '../../support/app.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

function render(test: TestApp) {
  const log = new EventLog('s1');
  const frames = new ManualFrames();
  const controller = new SessionController({ ...test.app, i18n: test.i18n, schedule: frames.schedule }, log.sessionId);
  controller.view.loadSnapshot(log.emptySnapshot());
  const mounted = mountWithApp(SessionHeader, { controller }, test);
  cleanup = mounted.destroy;
  return { target: mounted.target, log, controller, frames };
}

describe('SessionHeader', () => {
  it('names the session’s model beside its agent, in either language', () => {
    for (const [language, label] of [['en', 'Model: deepseek-reasoner'], ['zh', '模型：deepseek-reasoner']] as const) {
      const test = createTestApp(language);
      const log = new EventLog('s1');
      const controller = new SessionController({ ...test.app, i18n: test.i18n, schedule: new ManualFrames().schedule }, log.sessionId);
      controller.view.loadSnapshot({ ...log.emptySnapshot(), session: { ...log.info, agent: 'deepseek', model: 'deepseek-reasoner' } });
      const mounted = mountWithApp(SessionHeader, { controller }, test);
      expect(mounted.target.querySelector('[data-model]')?.textContent).toBe(label);
      mounted.destroy();
    }
  });

  it('says how many sub-agents are running, in either language, and nothing once none runs', () => {
    for (const [language, label] of [['en', '2 sub-agents running'], ['zh', '2 个子代理运行中']] as const) {
      const test = createTestApp(language);
      const { target, log, controller, frames } = render(test);
      const part1 = log.delegate('part 1', 'What is 17 * 23 + 4?');
      const part2 = log.delegate('part 2', 'What is 15% of 240?');
      for (const event of log.events) controller.view.enqueue(event);
      flushSync(() => frames.run());
      expect(target.querySelector('[data-subagents-running]')?.textContent?.trim()).toBe(label);
      const seen = log.events.length;
      log.subagentStatus(part1, 'completed');
      log.subagentStatus(part2, 'completed');
      for (const event of log.since(log.events[seen - 1]!.seq)) controller.view.enqueue(event);
      flushSync(() => frames.run());
      expect(target.querySelector('[data-subagents-running]')).toBeNull();
      cleanup?.();
      cleanup = undefined;
    }
  });

  it('shows the time the agent ran, not the time since creation: a waiting or finished session does not count on', () => {
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    for (const status of ['waiting', 'completed'] as const) {
      const test = createTestApp();
      const log = new EventLog('s1');
      const controller = new SessionController({ ...test.app, i18n: test.i18n, schedule: new ManualFrames().schedule }, log.sessionId);
      controller.view.loadSnapshot({ ...log.emptySnapshot(), session: { ...log.info, status, createdAt: hourAgo }, runTime: { totalMs: 65_000 } });
      const mounted = mountWithApp(SessionHeader, { controller }, test);
      const time = mounted.target.querySelector('time.elapsed')!;
      expect(time.textContent?.trim(), status).toBe(test.i18n.formatClock(65_000));
      expect(time.getAttribute('datetime')).toBe('PT65S');
      expect(time.getAttribute('aria-label')).toBe('Time the agent ran');
      mounted.destroy();
    }
  });

  it('counts on while the agent runs, from the open interval', () => {
    const test = createTestApp();
    const log = new EventLog('s1');
    const controller = new SessionController({ ...test.app, i18n: test.i18n, schedule: new ManualFrames().schedule }, log.sessionId);
    const since = new Date(Date.now() - 30_000).toISOString();
    controller.view.loadSnapshot({ ...log.emptySnapshot(), session: { ...log.info, status: 'running' }, runTime: { totalMs: 10_000, runningSince: since } });
    const mounted = mountWithApp(SessionHeader, { controller }, test);
    const seconds = Number(/^PT(\d+)S$/.exec(mounted.target.querySelector('time.elapsed')!.getAttribute('datetime')!)?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(39);
    expect(seconds).toBeLessThan(45);
    mounted.destroy();
  });

  it('names no model for an agent that offers none', () => {
    const { target } = render(createTestApp());
    expect(target.querySelector('[data-model]')).toBeNull();
  });

  it('has a quiet Delete session button after Cancel that asks for confirmation', async () => {
    const test = createTestApp();
    const { target } = render(test);
    const names = Array.from(target.querySelectorAll('.controls button')).map((button) => button.getAttribute('aria-label'));
    expect(names).toEqual(['Pause the agent', 'Resume the agent', 'Cancel the session for good', 'Delete session']);

    const button = buttonNamed(target, /^Delete session$/)!;
    expect(button.disabled).toBe(false);
    button.click();
    await settle();
    expect(test.app.deletion.asking).toEqual({ sessionId: 's1', task: 'What is 15% of 240?' });
    expect(test.requests).toEqual([]);
  });

  it('shows the deleted banner and disables every control once the session is deleted', async () => {
    const test = createTestApp('zh');
    const { target, log, controller, frames } = render(test);
    log.deleted();
    for (const event of log.events) controller.view.enqueue(event);
    frames.run();
    await settle();
    expect(target.querySelector('[role="alert"]')?.textContent).toBe('此会话已被删除。页面上的内容会保留，但已无法再修改。');
    expect(buttonNamed(target, /^删除会话$/)?.disabled).toBe(true);
    expect(Array.from(target.querySelectorAll<HTMLButtonElement>('.controls button')).every((button) => button.disabled)).toBe(true);
  });

  /** The header of a session whose calculator call waits for approval. */
  async function waitingHeader(locale: 'en' | 'zh'): Promise<HTMLElement> {
    const { target, log, controller, frames } = render(createTestApp(locale));
    const call = log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
    log.askApproval(call);
    for (const event of log.events) controller.view.enqueue(event);
    frames.run();
    await settle();
    return target;
  }

  it('says a waiting session waits for the user, names the tool, and offers only Cancel', async () => {
    const target = await waitingHeader('en');
    expect(target.querySelector('[data-session-status]')?.textContent?.trim()).toBe('Waiting for you');
    const enabled = Array.from(target.querySelectorAll<HTMLButtonElement>('.controls button'))
      .filter((button) => !button.disabled)
      .map((button) => button.getAttribute('aria-label'));
    expect(enabled).toEqual(['Cancel the session for good', 'Delete session']);
    const banner = target.querySelector('.banner.waiting')!;
    expect(banner.textContent).toContain('The agent wants to run calculator. Approve, edit or reject the call below.');
    expect(buttonNamed(banner, /^Go to the call$/)).toBeDefined();
    // The server's English detail gives way to the banner.
    expect(target.querySelector('.detail')).toBeNull();
  });

  it('says it in Chinese', async () => {
    const target = await waitingHeader('zh');
    expect(target.querySelector('[data-session-status]')?.textContent?.trim()).toBe('等待你的决定');
    expect(target.querySelector('.banner.waiting')?.textContent).toContain('智能体想运行 calculator。请在下方批准、修改或拒绝这次调用。');
  });

  it('shows a status it does not know by its name, with no lifecycle button', async () => {
    const test = createTestApp();
    const { target, log, controller, frames } = render(test);
    log.status('hibernating' as never);
    for (const event of log.events) controller.view.enqueue(event);
    frames.run();
    await settle();
    expect(target.querySelector('[data-session-status]')?.textContent?.trim()).toBe('hibernating');
    const enabled = Array.from(target.querySelectorAll<HTMLButtonElement>('.controls button')).filter((button) => !button.disabled);
    expect(enabled.map((button) => button.getAttribute('aria-label'))).toEqual(['Delete session']);
  });
});
