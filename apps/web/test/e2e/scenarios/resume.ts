import type { WebSocketRoute } from 'playwright-core';
import { expect, it } from 'vitest';
import { openPage } from '../support/browser.js';
import { expectChainMatchesSnapshot, fetchSnapshot, liveSteps, startFromHome, waitForCompletion } from '../support/chain-page.js';
import { APPLES_TASK, TRAIN_TASK, type GetEnv } from '../support/e2e-env.js';

/** Reloads and dropped connections mid-stream end with the whole chain, nothing doubled or missing. */
export function resumeScenarios(env: GetEnv): void {
  it('finds the chain complete after a reload mid-stream, with no duplicated or missing text', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(page, APPLES_TASK);
      // Reload while the second step is being written.
      await page.locator('.timeline > li > [data-kind="action"][data-status="streaming"]').waitFor({ timeout: 15_000 });
      await page.reload();
      await page.locator('.timeline > li > [data-step-id]').first().waitFor();
      await waitForCompletion(page);

      const snapshot = await fetchSnapshot(page, sessionId);
      expectChainMatchesSnapshot(await liveSteps(page), snapshot);
      expect(snapshot.chain).toHaveLength(5);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('reconnects by itself after the connection drops mid-stream and resumes without gaps', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    const routes: WebSocketRoute[] = [];
    try {
      // Every socket goes through a pass-through proxy the test can cut, like a network drop.
      await page.routeWebSocket(/\/ws$/, (route) => {
        routes.push(route);
        route.connectToServer();
      });
      const sessionId = await startFromHome(page, APPLES_TASK);
      await page.locator('[data-connection="connected"]').waitFor();
      await page.locator('.timeline > li > [data-kind="thought"][data-status="streaming"]').waitFor({ timeout: 15_000 });
      const dropped = routes.length;
      await routes[routes.length - 1]!.close({ code: 4000, reason: 'test: network drop' });

      await page.locator('[data-connection="reconnecting"], [data-connection="offline"]').first().waitFor({ timeout: 5_000 });
      await page.locator('[data-connection="connected"]').waitFor({ timeout: 15_000 });
      expect(routes.length).toBeGreaterThan(dropped);
      await waitForCompletion(page);

      expectChainMatchesSnapshot(await liveSteps(page), await fetchSnapshot(page, sessionId));
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the same live session in a second tab opened on its URL', async () => {
    const first = await openPage(env().browser, env().server.url);
    const second = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(first.page, TRAIN_TASK);
      await second.page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await Promise.all([waitForCompletion(first.page), waitForCompletion(second.page)]);
      const snapshot = await fetchSnapshot(first.page, sessionId);
      expectChainMatchesSnapshot(await liveSteps(first.page), snapshot);
      expectChainMatchesSnapshot(await liveSteps(second.page), snapshot);
    } finally {
      await first.context.close();
      await second.context.close();
    }
  });
}
