import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser } from './browser.js';
import type { E2eEnv, GetEnv } from './e2e-env.js';
import { startServer, type RunningServer } from './server.js';

/**
 * One server (with `serverEnv`) and one browser for every scenario of a test file, started before
 * them and stopped after: the machine has two cores. Returns how a scenario reaches them.
 */
export function useServerAndBrowser(serverEnv: Record<string, string> = {}): GetEnv {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    server = await startServer(serverEnv);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  return (): E2eEnv => {
    if (!server || !browser) throw new Error('The e2e environment did not start (see the beforeAll error).');
    return { server, browser };
  };
}
