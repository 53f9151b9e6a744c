import { expect, it } from 'vitest';
import { openPage } from '../support/browser.js';
import { expectChainMatchesSnapshot, fetchSnapshot, liveSteps, openCorrection, startFromHome, waitForCompletion } from '../support/chain-page.js';
import { PERCENT_TASK, type GetEnv } from '../support/e2e-env.js';

/** A correction made in one tab appears live in every other tab on the session. */
export function twoTabScenarios(env: GetEnv): void {
  it('shows a correction made in one tab live in another', async () => {
    const author = await openPage(env().browser, env().server.url);
    // A separate browser context: its own storage and connection, like another window or person.
    const watcher = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(author.page, PERCENT_TASK);
      await watcher.page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await Promise.all([waitForCompletion(author.page), waitForCompletion(watcher.page)]);
      const before = await liveSteps(watcher.page);
      const call = before.find((step) => step.kind === 'tool_call')!;
      const original = JSON.parse(call.text) as { expression: string };

      const editor = await openCorrection(author.page, '.rows [data-row] > [data-kind="tool_call"]');
      await editor.fill(JSON.stringify({ expression: '240 * 0.25' }));
      await author.page.getByRole('button', { name: 'Save', exact: true }).click();

      // The watcher never touched anything: it sees the correction arrive through the event stream.
      await watcher.page.locator('.rows [data-row] > [data-kind="tool_call"][data-status="corrected"]').waitFor({ timeout: 15_000 });
      await watcher.page.getByRole('button', { name: /steps? superseded by your correction/ }).waitFor();
      await Promise.all([waitForCompletion(author.page), waitForCompletion(watcher.page)]);

      const after = await liveSteps(watcher.page);
      expect(JSON.parse(after.find((step) => step.kind === 'tool_call')!.text)).toEqual({ expression: '240 * 0.25' });
      expect(original.expression).not.toBe('240 * 0.25');
      expect(after.find((step) => step.kind === 'observation')!.text).toContain('60');
      const corrected = watcher.page.locator('.rows [data-row] > [data-status="corrected"]');
      // No users on this server: the other browser is the same person (PROTOCOL.md §21.2).
      expect(await corrected.textContent()).toContain('corrected by you');

      const snapshot = await fetchSnapshot(author.page, sessionId);
      expectChainMatchesSnapshot(after, snapshot);
      expectChainMatchesSnapshot(await liveSteps(author.page), snapshot);
      expect(author.errors).toEqual([]);
      expect(watcher.errors).toEqual([]);
    } finally {
      await author.context.close();
      await watcher.context.close();
    }
  });
}
