import { expect, it } from 'vitest';
import { openPage, screenshot } from '../support/browser.js';
import { startFromHome, waitForCompletion } from '../support/chain-page.js';
import { APPLES_TASK, TRAIN_TASK, type GetEnv } from '../support/e2e-env.js';

/** Language, theme and keyboard: the app as different people use it. */
export function preferenceScenarios(env: GetEnv): void {
  it('switches to Chinese, remembers the choice across a reload, and formats in the locale', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await page.goto('/');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('What should the agent work on?');
      await page.getByRole('button', { name: '中文' }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('让智能体做什么？');
      expect(await page.getByRole('link', { name: '新会话' }).count()).toBe(1);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');

      await page.reload();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('让智能体做什么？');
      await screenshot(page, '07-chinese-home');

      await startFromHome(page, APPLES_TASK);
      await waitForCompletion(page);
      expect(await page.locator('[data-session-status]').textContent()).toContain('已完成');
      expect(await page.locator('.rows [data-row] > [data-kind="thought"] .kind').textContent()).toBe('思考');
      await page.locator('.rows [data-row] > [data-kind="tool_call"]').hover();
      expect(await page.locator('.rows [data-row] > [data-kind="tool_call"] [data-action="correct"]').textContent()).toContain('修正');
      await screenshot(page, '08-chinese-session');

      await page.getByRole('button', { name: 'English' }).click();
      expect(await page.locator('[data-session-status]').textContent()).toContain('Completed');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('follows a dark colour scheme', async () => {
    const { page, context } = await openPage(env().browser, env().server.url, { colorScheme: 'dark' });
    try {
      await startFromHome(page, TRAIN_TASK);
      await waitForCompletion(page);
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const [r, g, b] = (background.match(/\d+/g) ?? []).map(Number);
      expect((r ?? 255) + (g ?? 255) + (b ?? 255)).toBeLessThan(120);
      await page.locator('.rows [data-row] > [data-kind="action"]').hover();
      await screenshot(page, '06-dark-mode');
    } finally {
      await context.close();
    }
  });

  it('moves between steps with j/k, corrects with e, cancels with Esc, and lists shortcuts on ?', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await startFromHome(page, TRAIN_TASK);
      await waitForCompletion(page);
      await page.locator('main').click({ position: { x: 5, y: 300 } });
      const focusedKind = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[data-step-id]')?.dataset.kind);

      await page.keyboard.press('j');
      expect(await focusedKind()).toBe('thought');
      await page.keyboard.press('j');
      expect(await focusedKind()).toBe('action');
      await page.keyboard.press('k');
      expect(await focusedKind()).toBe('thought');
      await page.keyboard.press('Shift+G');
      expect(await focusedKind()).toBe('final_answer');
      await page.keyboard.press('g');
      await page.keyboard.press('g');
      expect(await focusedKind()).toBe('thought');

      await page.keyboard.press('j');
      await page.keyboard.press('e');
      const editor = page.locator('[data-kind="action"] textarea');
      await editor.waitFor();
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
      await page.keyboard.press('Escape');
      await editor.waitFor({ state: 'detached' });

      await page.keyboard.press('?');
      const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain('Correct the focused step');
      await screenshot(page, '09-shortcuts');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('pauses, resumes and cancels a running session from the header', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await startFromHome(page, APPLES_TASK);
      await page.getByRole('button', { name: 'Pause the agent' }).click();
      await page.locator('[data-session-status="paused"]').waitFor({ timeout: 10_000 });
      expect(await page.getByRole('button', { name: 'Resume the agent' }).isEnabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Pause the agent' }).isEnabled()).toBe(false);
      await page.getByRole('button', { name: 'Resume the agent' }).click();
      await page.locator('[data-session-status="running"]').waitFor({ timeout: 10_000 });
      await page.getByRole('button', { name: 'Cancel the session for good' }).click();
      await page.locator('[data-session-status="cancelled"]').waitFor({ timeout: 10_000 });
      // A cancelled session can no longer be corrected.
      expect(await page.locator('[data-action="correct"]').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
}
