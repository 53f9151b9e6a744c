import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { FakeOpenAIServer } from '../../../../server/test/agents/openai/support/fake-openai-server.js';
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

/** What a scenario of a file with a fake OpenAI-compatible endpoint reaches. */
export interface FakeOpenAIEnv extends E2eEnv {
  fake: FakeOpenAIServer;
}

/**
 * A fake OpenAI-compatible endpoint (its real wire format), then one server configured for it by
 * `serverEnvOf` and one browser, for every scenario of a test file; stopped after them.
 */
export function useFakeOpenAIServerAndBrowser(serverEnvOf: (fake: FakeOpenAIServer) => Record<string, string>): () => FakeOpenAIEnv {
  let fake: FakeOpenAIServer | undefined;
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    fake = await FakeOpenAIServer.start();
    server = await startServer(serverEnvOf(fake));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fake?.close();
  });
  return (): FakeOpenAIEnv => {
    if (!server || !browser || !fake) throw new Error('The e2e environment did not start (see the beforeAll error).');
    return { server, browser, fake };
  };
}
