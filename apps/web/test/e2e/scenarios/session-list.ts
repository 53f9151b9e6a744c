import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { openPage } from '../support/browser.js';
import { startFromHome, waitForCompletion } from '../support/chain-page.js';
import type { GetEnv } from '../support/e2e-env.js';

/** How long another tab may take to show what the server pushed: a couple of seconds, not a poll. */
const PUSHED_WITHIN_MS = 3_000;

/** The rail's row for the session with this task, as the user reads it. */
const railRow = (page: Page, task: string) =>
  page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem').filter({ has: page.getByRole('link', { name: task }) });

/** The rail follows the server's list: what one tab does shows in every other tab, unasked. */
export function sessionListScenarios(env: GetEnv): void {
  it('shows a session started, completed and deleted in one tab in another tab’s rail without a reload', async () => {
    const author = await openPage(env().browser, env().server.url);
    // Another browser context: its own connection, like another window or person.
    const watcher = await openPage(env().browser, env().server.url);
    // A task no other scenario uses, so its row is the only one with this text.
    const task = `What is 15% of ${1000 + (Date.now() % 9000)}?`;
    const listRequests: string[] = [];
    watcher.page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/sessions') listRequests.push(request.url());
    });
    try {
      await watcher.page.goto('/');
      await watcher.page.getByRole('navigation', { name: 'Sessions' }).waitFor();
      // Survives only as long as the page is not reloaded.
      await watcher.page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

      const sessionId = await startFromHome(author.page, task);
      const row = railRow(watcher.page, task);
      await row.waitFor({ timeout: PUSHED_WITHIN_MS });
      expect(await row.getByRole('link').getAttribute('href')).toBe(`/sessions/${encodeURIComponent(sessionId)}`);

      await waitForCompletion(author.page);
      await row.getByRole('img', { name: 'Completed' }).waitFor({ timeout: PUSHED_WITHIN_MS });

      await author.page.getByRole('button', { name: 'Delete session', exact: true }).click();
      const dialog = author.page.getByRole('dialog', { name: 'Delete this session for everyone watching it?' });
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await author.page.waitForURL((url) => url.pathname === '/');
      await row.waitFor({ state: 'detached', timeout: PUSHED_WITHIN_MS });

      // All of it reached the watcher through the socket: same page, and it never asked for the list.
      expect(new URL(watcher.page.url()).pathname).toBe('/');
      expect(await watcher.page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
      expect(listRequests).toEqual([]);
      expect(author.errors).toEqual([]);
      expect(watcher.errors).toEqual([]);
    } finally {
      await author.context.close();
      await watcher.context.close();
    }
  });

  it('shows older sessions than the newest 50 on request, page by page from the server', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    const tag = `Archive ${Date.now() % 100_000}`;
    try {
      await page.goto('/');
      const rail = page.getByRole('navigation', { name: 'Sessions' });
      await rail.waitFor();
      // 51 sessions over three connections (20 per connection at most), straight over the protocol.
      await page.evaluate(
        async ({ count, tag }) => {
          const open = () =>
            new Promise<WebSocket>((resolve, reject) => {
              const socket = new WebSocket(`ws://${location.host}/ws`);
              socket.onopen = () => resolve(socket);
              socket.onerror = () => reject(new Error('socket failed'));
            });
          for (let created = 0; created < count; ) {
            const socket = await open();
            const batch = Math.min(20, count - created);
            await new Promise<void>((resolve) => {
              let answered = 0;
              socket.onmessage = (event: MessageEvent<string>) => {
                if ((JSON.parse(event.data) as { type: string }).type === 'session.created' && ++answered === batch) resolve();
              };
              for (let i = 0; i < batch; i++) {
                socket.send(JSON.stringify({ type: 'session.create', task: `${tag} #${created + i}`, options: { tokenDelayMs: 0 } }));
              }
            });
            socket.close();
            created += batch;
          }
        },
        { count: 51, tag },
      );
      // The task's own text, exactly: "#5" must not find "#50".
      const row = (n: number) => rail.getByText(`${tag} #${n}`, { exact: true });
      await row(50).waitFor({ timeout: PUSHED_WITHIN_MS });
      // The oldest of them is the 51st newest: beyond the followed window, until asked for.
      expect(await row(0).count()).toBe(0);
      const older = rail.getByRole('button', { name: 'Show older sessions' });
      await older.click();
      await row(0).waitFor({ timeout: PUSHED_WITHIN_MS });
      expect(await rail.getByText(new RegExp(`^${tag} #\\d+$`)).count()).toBe(51);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
}
