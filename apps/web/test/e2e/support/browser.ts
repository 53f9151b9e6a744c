import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

/** Screenshots of the main states, for people to look at (git-ignored). */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../../screenshots/', import.meta.url));

/** The system Chromium, headless. Never downloads a browser. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors, to assert a flow ran clean. */
  errors: string[];
}

/** A fresh browser context (its own storage) with one page, collecting the page's errors. */
export async function openPage(browser: Browser, baseURL: string, options: BrowserContextOptions = {}): Promise<OpenedPage> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 860 }, locale: 'en-US', ...options });
  const page = await context.newPage();
  const errors = watchErrors(page);
  return { context, page, errors };
}

/** Collect the errors a page reports. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return errors;
}

/** Save a full-window screenshot as screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOT_DIR}${name}.png` });
}
