// @vitest-environment node
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, screenshot } from './support/browser.js';
import { waitForCompletion, waitForStreaming } from './support/chain-page.js';
import { PERCENT_TASK, TRAIN_TASK } from './support/e2e-env.js';
import { useServerAndBrowser } from './support/shared-env.js';

// The bundled UI against a real server started with INTERTHOUGHT_TOKEN, in real Chromium.
const TOKEN = 'e2e-s3cret-t0ken';

const env = useServerAndBrowser({ INTERTHOUGHT_TOKEN: TOKEN });

/** What the address bar shows, without the origin. */
const shownAddress = (page: Page) => {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}${url.hash}`;
};

/** Every WebSocket the page opens, to count the attempts. */
function countSockets(page: Page): () => number {
  let opened = 0;
  page.on('websocket', () => opened++);
  return () => opened;
}

const accessTitle = (page: Page) => page.locator('#access-title');

describe('the web app with INTERTHOUGHT_TOKEN, in Chromium', { timeout: 90_000 }, () => {
  it('refuses the API without the token: the page cannot work around the guard', async () => {
    const response = await fetch(`${env().server.url}/api/agents`);
    expect(response.status).toBe(401);
  });

  it('takes ?token= once, drops it from the address, and works over the socket and REST, across reloads', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    const consoleText: string[] = [];
    page.on('console', (message) => consoleText.push(message.text()));
    try {
      await page.goto(`/?lang=en&token=${TOKEN}#start`);
      // The agents come from REST (Bearer header), so a listed agent proves the token reached it.
      await page.getByRole('radio', { name: /demo/ }).waitFor({ state: 'attached' });
      expect(shownAddress(page)).toBe('/?lang=en#start');

      await page.getByRole('textbox', { name: /What should the agent work on/ }).fill(TRAIN_TASK);
      await page.getByRole('button', { name: /^Start/ }).click();
      await page.waitForURL(/\/sessions\/[^/]+$/);
      await page.locator('[data-connection="connected"]').waitFor();
      await waitForStreaming(page, 1);
      await waitForCompletion(page);
      const sessionPath = shownAddress(page);

      // A reload of the tab keeps the token (session storage): the session shows again, connected.
      await page.reload();
      await page.locator('[data-connection="connected"]').waitFor();
      await page.locator('[data-session-status="completed"]').waitFor();
      expect(shownAddress(page)).toBe(sessionPath);
      await page.goto('/');
      await page.getByRole('radio', { name: /demo/ }).waitFor({ state: 'attached' });
      await page.locator(`nav a[href="${sessionPath}"]`).waitFor();

      // Never shown, never in the address, never logged.
      expect(await page.evaluate(() => document.body.innerText)).not.toContain(TOKEN);
      expect(page.url()).not.toContain(TOKEN);
      expect(consoleText.filter((text) => text.includes(TOKEN))).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('takes the token on a session’s own address, keeping its other parameters and hash', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await page.goto(`/?token=${TOKEN}`);
      await page.getByRole('textbox', { name: /What should the agent work on/ }).fill(PERCENT_TASK);
      await page.getByRole('button', { name: /^Start/ }).click();
      await page.waitForURL(/\/sessions\/[^/]+$/);
      const sessionPath = new URL(page.url()).pathname;
      await waitForCompletion(page);

      // A new tab has no token yet: the link carries it.
      const other = await context.browser()!.newContext({ baseURL: env().server.url, locale: 'en-US' });
      try {
        const tab = await other.newPage();
        await tab.goto(`${sessionPath}?view=full&token=${encodeURIComponent(TOKEN)}#latest`);
        await tab.locator('[data-connection="connected"]').waitFor();
        await tab.locator('[data-session-status="completed"]').waitFor();
        expect(shownAddress(tab)).toBe(`${sessionPath}?view=full#latest`);
      } finally {
        await other.close();
      }
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('explains a missing token in English and Chinese, stops retrying, and connects with a pasted token', async () => {
    const { page, context } = await openPage(env().browser, env().server.url);
    const sockets = countSockets(page);
    try {
      await page.goto('/');
      await accessTitle(page).waitFor();
      expect(await accessTitle(page).textContent()).toBe('This server needs an access token');
      expect(await page.locator('[data-access-problem]').textContent()).toContain('Open the link with ?token=… that the server’s operator gave you, or paste the token here.');
      await screenshot(page, '20-access-token-missing');

      // The client gave up after the server said 401: no more attempts while the page waits.
      const attempts = sockets();
      await page.waitForTimeout(1_500);
      expect(sockets()).toBe(attempts);

      await page.getByRole('button', { name: '中文' }).click();
      expect(await accessTitle(page).textContent()).toBe('此服务器需要访问令牌');
      expect(await page.locator('[data-access-problem]').textContent()).toContain('请打开服务器管理员给你的带 ?token=… 的链接，或在这里粘贴令牌。');
      await screenshot(page, '21-access-token-missing-zh');

      await page.getByLabel('访问令牌', { exact: true }).fill(TOKEN);
      await page.getByRole('button', { name: '连接' }).click();
      await page.getByRole('heading', { level: 1, name: '让智能体做什么？' }).waitFor();
      await page.getByRole('radio', { name: /demo/ }).waitFor({ state: 'attached' });
      // The rail is fed over the socket: sessions listed mean the socket is connected with the token.
      await page.locator('nav a[data-session-id]').first().waitFor();
      expect(sockets()).toBeGreaterThan(attempts);

      // Kept for the tab: a reload goes straight in.
      await page.reload();
      await page.getByRole('radio', { name: /demo/ }).waitFor({ state: 'attached' });
      expect(await accessTitle(page).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('says a wrong token was refused, from the link or pasted, until the right one is given', async () => {
    const { page, context } = await openPage(env().browser, env().server.url);
    try {
      await page.goto('/?token=not-the-token');
      await accessTitle(page).waitFor();
      expect(await accessTitle(page).textContent()).toBe('The server refused this access token');
      expect(shownAddress(page)).toBe('/');
      await screenshot(page, '22-access-token-refused');

      await page.getByLabel('Access token', { exact: true }).fill('still-not-it');
      await page.getByRole('button', { name: 'Connect' }).click();
      await page.getByRole('button', { name: 'Connect' }).waitFor();
      expect(await accessTitle(page).textContent()).toBe('The server refused this access token');

      await page.getByLabel('Access token', { exact: true }).fill(TOKEN);
      await page.getByRole('button', { name: 'Connect' }).click();
      await page.getByRole('radio', { name: /demo/ }).waitFor({ state: 'attached' });
      expect(await accessTitle(page).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
