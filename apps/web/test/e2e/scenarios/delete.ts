import { expect, it } from 'vitest';
import { openPage, screenshot } from '../support/browser.js';
import { liveSteps, startFromHome, waitForCompletion } from '../support/chain-page.js';
import { APPLES_TASK, PERCENT_TASK, TRAIN_TASK, type GetEnv } from '../support/e2e-env.js';

const railLink = (sessionId: string) => `nav a[data-session-id="${sessionId}"]`;

/** Deleting a session, for everyone watching it: from its page, from the rail, and when it is already gone. */
export function deleteScenarios(env: GetEnv): void {
  it('deletes from the session page: this tab goes home, the rail drops it, a watching tab shows the deleted banner', async () => {
    const author = await openPage(env().browser, env().server.url);
    // Another browser context: its own connection, like a colleague watching the same session.
    const watcher = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(author.page, PERCENT_TASK);
      await watcher.page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await Promise.all([waitForCompletion(author.page), waitForCompletion(watcher.page)]);
      await author.page.locator(railLink(sessionId)).waitFor();
      expect(await watcher.page.locator('[data-action="correct"]').count()).toBeGreaterThan(0);

      await author.page.getByRole('button', { name: 'Delete session', exact: true }).click();
      const dialog = author.page.getByRole('dialog', { name: 'Delete this session for everyone watching it?' });
      await dialog.waitFor();
      // The safe choice has the focus; Delete must be pressed on purpose.
      expect(await author.page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Cancel');
      expect(await dialog.textContent()).toContain(PERCENT_TASK);
      await screenshot(author.page, '10-delete-confirm');
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();

      await author.page.waitForURL((url) => url.pathname === '/');
      await author.page.getByRole('status').filter({ hasText: 'Session deleted' }).waitFor();
      await dialog.waitFor({ state: 'hidden' });
      expect(await author.page.locator(railLink(sessionId)).count()).toBe(0);

      // The watcher did nothing: the deletion reached it as the session's last event.
      await watcher.page.getByRole('alert').filter({ hasText: 'This session was deleted' }).waitFor({ timeout: 10_000 });
      expect(await watcher.page.locator('[data-action="correct"]').count()).toBe(0);
      expect((await liveSteps(watcher.page)).length).toBeGreaterThan(0);
      expect(await watcher.page.getByRole('button', { name: 'Delete session', exact: true }).isDisabled()).toBe(true);
      await watcher.page.locator(railLink(sessionId)).waitFor({ state: 'detached' });
      await screenshot(watcher.page, '11-deleted-banner');

      expect((await author.page.request.get(`/api/sessions/${encodeURIComponent(sessionId)}`)).status()).toBe(404);
      expect(author.errors).toEqual([]);
      expect(watcher.errors).toEqual([]);
    } finally {
      await author.context.close();
      await watcher.context.close();
    }
  });

  it('deletes from the rail with the keyboard, and shows the server’s refusal when the session is already gone', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url, { colorScheme: 'dark', locale: 'zh-CN' });
    try {
      const other = await startFromHome(page, TRAIN_TASK);
      const current = await startFromHome(page, APPLES_TASK);
      await page.locator(railLink(other)).waitFor();

      // Another session than the open one, reached by keyboard: its delete button follows its link.
      await page.locator(railLink(other)).focus();
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`删除会话：${TRAIN_TASK}`);
      await screenshot(page, '12-rail-delete-button-dark-zh');
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: '为所有观看者删除此会话？' });
      await dialog.waitFor();
      await screenshot(page, '13-delete-confirm-dark-zh');
      await dialog.getByRole('button', { name: '删除', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.locator(railLink(other)).waitFor({ state: 'detached' });
      await page.getByRole('status').filter({ hasText: '会话已删除' }).waitFor();
      // Deleting another session leaves this page where it was.
      expect(new URL(page.url()).pathname).toBe(`/sessions/${encodeURIComponent(current)}`);

      // Deleted elsewhere while the confirmation is open: the refusal is shown, not swallowed.
      // Other tests' sessions may share the task: find the button in this session's own rail row.
      const row = page.locator('nav li', { has: page.locator(`a[data-session-id="${current}"]`) });
      await row.hover();
      await row.getByRole('button', { name: `删除会话：${APPLES_TASK}` }).click();
      await dialog.waitFor();
      expect((await page.request.delete(`/api/sessions/${encodeURIComponent(current)}`)).status()).toBe(204);
      await dialog.getByRole('button', { name: '删除', exact: true }).click();
      const refusal = dialog.getByRole('alert');
      await refusal.waitFor();
      expect(await refusal.getAttribute('data-code')).toBe('SESSION_NOT_FOUND');
      expect(await refusal.textContent()).toContain('它已经被删除了');
      // Nothing is left to delete: Close is the only choice, and it has the focus.
      expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('关闭');
      await screenshot(page, '14-delete-refused-dark-zh');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });

      // This page was watching it, so it shows the banner and stops the clock and the caret.
      await page.getByRole('alert').filter({ hasText: '此会话已被删除' }).waitFor();
      expect(await page.locator('[data-session-status]').textContent()).toContain('已删除');
      expect(await page.locator('.rows [aria-busy="true"]').count()).toBe(0);
      expect(await page.locator(railLink(current)).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
}
