// @vitest-environment node
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../../../server/test/agents/openai/support/fake-openai-server.js';
import { answerTurn, content } from '../../../server/test/agents/openai/support/wire.js';
import { writeAgentsFile } from './support/agents-file.js';
import { launchBrowser, openPage, screenshot } from './support/browser.js';
import { waitForCompletion } from './support/chain-page.js';
import { startServer, type RunningServer } from './support/server.js';

// Agents and their models (PROTOCOL.md §9.1, §18) in real Chromium: the real server reads an
// agents file whose `hosted` agent offers two models on a fake OpenAI-compatible endpoint.

let fake: FakeOpenAIServer | undefined;
let server: RunningServer | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  fake = await FakeOpenAIServer.start();
  const file = writeAgentsFile({
    hosted: { type: 'openai', description: 'Two models on one endpoint', baseURL: fake.baseURL, model: 'small-model', models: ['large-model'], retry: { baseDelayMs: 5 } },
    builder: { type: 'remote', description: 'Builds on our workers' },
  });
  server = await startServer({ INTERTHOUGHT_AGENTS_CONFIG: file, OPENAI_BASE_URL: '', OPENAI_API_KEY: '' });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fake?.close();
});

describe('models in Chromium', { timeout: 60_000 }, () => {
  it('picks a model of the agent with the keyboard, starts on it, and the header names it', async () => {
    if (!server || !browser || !fake) throw new Error('The e2e environment did not start (see the beforeAll error).');
    fake.reply(answerTurn(...content('The large model answers.')));
    const { page, errors, context } = await openPage(browser, server.url);
    await page.goto('/');
    await expect.poll(() => page.locator('label.agent', { hasText: 'builder' }).innerText()).toContain('unavailable: no worker connected');
    // No model to choose for the demo agent.
    await expect(page.getByRole('combobox', { name: 'Model' }).count()).resolves.toBe(0);

    await page.locator('label.agent', { hasText: 'hosted' }).click();
    const model = page.getByRole('combobox', { name: 'Model' });
    await model.waitFor();
    expect(await model.inputValue()).toBe('small-model');
    await model.focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => model.inputValue()).toBe('large-model');
    await screenshot(page, 'models-picker');

    await page.getByRole('textbox', { name: /What should the agent work on/ }).fill('Which model are you?');
    await page.getByRole('button', { name: /^Start/ }).click();
    await page.waitForURL(/\/sessions\/[^/]+$/);
    await waitForCompletion(page);

    expect(await page.locator('[data-model]').innerText()).toBe('Model: large-model');
    expect(fake.requests.map((request) => request.body.model)).toEqual(['large-model']);
    await screenshot(page, 'models-session');
    expect(errors).toEqual([]);
    await context.close();
  });
});
