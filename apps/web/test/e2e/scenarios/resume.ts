import type { WebSocketRoute } from 'playwright-core';
import { expect, it } from 'vitest';
import { openPage } from '../support/browser.js';
import { expectChainMatchesSnapshot, fetchSnapshot, liveSteps, startFromHome, waitForCompletion, waitForStreaming } from '../support/chain-page.js';
import { APPLES_TASK, TRAIN_TASK, type GetEnv } from '../support/e2e-env.js';

/** Reloads and dropped connections mid-stream end with the whole chain, nothing doubled or missing. */
export function resumeScenarios(env: GetEnv): void {
  it('finds the chain complete after a reload mid-stream, with no duplicated or missing text', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(page, APPLES_TASK);
      // Reload while a step is being written.
      await waitForStreaming(page);
      await page.reload();
      await page.locator('.rows [data-row] > [data-step-id]').first().waitFor();
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
      await waitForStreaming(page);
      // The indicator may leave "connected" for only a few milliseconds: record every state it shows.
      await page.evaluate(() => {
        const seen: string[] = [document.querySelector('[data-connection]')?.getAttribute('data-connection') ?? ''];
        (window as { __connectionStates?: string[] }).__connectionStates = seen;
        new MutationObserver(() => {
          const state = document.querySelector('[data-connection]')?.getAttribute('data-connection');
          if (state && seen[seen.length - 1] !== state) seen.push(state);
        }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-connection'] });
      });
      const dropped = routes.length;
      await routes[routes.length - 1]!.close({ code: 4000, reason: 'test: network drop' });

      await page.waitForFunction(
        () => {
          const states = (window as { __connectionStates?: string[] }).__connectionStates ?? [];
          return states.length >= 3 && states[states.length - 1] === 'connected';
        },
        undefined,
        { timeout: 15_000 },
      );
      const states = await page.evaluate(() => (window as { __connectionStates?: string[] }).__connectionStates ?? []);
      expect(states[0]).toBe('connected');
      expect(states.slice(1, -1).every((state) => state === 'reconnecting' || state === 'offline')).toBe(true);
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
