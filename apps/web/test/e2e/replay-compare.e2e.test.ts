// @vitest-environment node
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../../../server/test/agents/openai/support/fake-openai-server.js';
import { answerTurn, content, usage, withUsage } from '../../../server/test/agents/openai/support/wire.js';
import { writeAgentsFile } from './support/agents-file.js';
import { launchBrowser, openPage, screenshot } from './support/browser.js';
import { startFromHome, waitForCompletion } from './support/chain-page.js';
import { PERCENT_TASK } from './support/e2e-env.js';
import { startServer, type RunningServer } from './support/server.js';

// Replay from a step on another agent and model, then compare side by side (PROTOCOL.md §26.5),
// in real Chromium: a demo session's final answer is replayed on an OpenAI-compatible agent whose
// endpoint is a fake speaking the real wire, and the compare view shows both.

let fake: FakeOpenAIServer | undefined;
let server: RunningServer | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  fake = await FakeOpenAIServer.start();
  const file = writeAgentsFile({
    hosted: { type: 'openai', description: 'Two models on one endpoint', baseURL: fake.baseURL, model: 'small-model', models: ['large-model'], retry: { baseDelayMs: 5 } },
  });
  server = await startServer({ INTERTHOUGHT_AGENTS_CONFIG: file, OPENAI_BASE_URL: '', OPENAI_API_KEY: '' });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fake?.close();
});

/** The session id of the page open now. */
function openSessionId(page: Page): string {
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
}

describe('replay on another agent and compare, in Chromium', { timeout: 90_000 }, () => {
  it('replays the final answer on another model, lands on the running fork, and compares it with the original', async () => {
    if (!server || !browser || !fake) throw new Error('The e2e environment did not start (see the beforeAll error).');
    const { page, errors, context } = await openPage(browser, server.url);
    const sourceId = await startFromHome(page, PERCENT_TASK);
    await waitForCompletion(page);
    const sourceSteps = await page.locator('.rows [data-row] > article[data-step-id]').count();

    // Slow enough to be seen running; its tokens are the fork's own figures.
    const turn = withUsage(answerTurn(...content('The large ', 'model ', 'says: ', 'thirty-six, ', 'exactly.')), usage(1200, 34));
    if (turn.type === 'stream') turn.deltaDelayMs = 400;
    fake.reply(turn);
    const answer = page.locator('.rows [data-row] > article[data-kind="final_answer"]');
    await answer.hover();
    await answer.locator('[data-action="replay"]').click();
    const dialog = page.getByTestId('replay-dialog');
    await dialog.getByRole('heading', { name: `Replay from step ${sourceSteps}` }).waitFor();
    // Another agent than the session's is picked first, on its default model.
    const agent = dialog.getByRole('combobox', { name: 'Agent' });
    await expect.poll(() => agent.inputValue()).toBe('hosted');
    const model = dialog.getByRole('combobox', { name: 'Model' });
    expect(await model.inputValue()).toBe('small-model');
    await model.selectOption('large-model');
    const confirm = dialog.getByRole('button', { name: 'Replay' });
    await expect.poll(() => confirm.isEnabled()).toBe(true);
    await screenshot(page, 'replay-dialog');
    await confirm.click();

    await page.waitForURL((url) => url.pathname.startsWith('/sessions/') && !url.pathname.endsWith(encodeURIComponent(sourceId)));
    const forkId = openSessionId(page);
    // It runs at once (a page that loads under load may miss the answer being written), then is done.
    await page.locator('[data-session-status="running"]').waitFor();
    await waitForCompletion(page);
    expect(await page.locator('.rows [data-row] > article[data-kind="final_answer"]').innerText()).toContain('thirty-six, exactly.');
    expect(fake.requests.map((request) => request.body.model)).toEqual(['large-model']);
    // The copied chain reached the model, the original's answer did not (a replay redoes the answer).
    const sent = JSON.stringify(fake.requests[0]!.body.messages);
    expect(sent).toContain('240');

    // The rail offers the compare view for the fork too.
    const railLink = page.locator(`a[data-action="compare-session"][href*="${encodeURIComponent(forkId)}"]`);
    expect(await railLink.getAttribute('href')).toBe(`/compare?a=${encodeURIComponent(sourceId)}&b=${encodeURIComponent(forkId)}`);

    await page.getByRole('link', { name: 'Compare with the original' }).click();
    await page.waitForURL(/\/compare\?a=/);
    const view = page.getByTestId('compare-view');
    await view.getByRole('heading', { name: 'Compare side by side' }).waitFor();
    const common = view.locator('[data-compare-common]');
    await common.waitFor();
    expect(await common.getAttribute('data-compare-common')).toBe(String(sourceSteps - 1));
    expect(await common.innerText()).toContain(`${sourceSteps - 1} steps in common`);
    const sides = view.locator('[data-compare-side]');
    expect(await sides.count()).toBe(2);
    expect(await sides.nth(0).textContent()).toContain('Original');
    expect(await sides.nth(0).innerText()).toContain('demo');
    expect(await sides.nth(1).innerText()).toContain('hosted · large-model');
    // The two answers in one row, one per column, and their diff.
    const row = view.locator(`[data-row-index="${sourceSteps - 1}"]`);
    expect(await row.count()).toBe(2);
    expect(await row.nth(1).innerText()).toContain('thirty-six, exactly.');
    const diff = view.locator('[data-answers-diff]');
    expect(await diff.locator('ins').count()).toBeGreaterThan(0);
    expect(await diff.locator('del').count()).toBeGreaterThan(0);
    // Per side figures: the fork's own tokens (a copy carries none), and run time on both.
    expect(await sides.nth(1).locator('[data-figure="tokens"]').innerText()).toBe('1,234');
    expect(await sides.nth(0).locator('[data-figure="tokens"]').innerText()).toBe('—');
    expect(await sides.nth(0).locator('[data-figure="time"]').innerText()).toMatch(/\d+(\.\d)?s/);
    expect(await sides.nth(1).locator('[data-figure="time"]').innerText()).toMatch(/\d+(\.\d)?s/);
    await common.getByRole('button').click();
    expect(await common.locator('[data-compare-step]').count()).toBe(sourceSteps - 1);
    await screenshot(page, 'compare-view');

    // On a phone the sides switch with tabs.
    await page.setViewportSize({ width: 390, height: 800 });
    const tabs = view.getByRole('tab');
    expect(await tabs.count()).toBe(2);
    expect(await sides.nth(1).isVisible()).toBe(false);
    await tabs.nth(1).click();
    expect(await sides.nth(1).isVisible()).toBe(true);
    expect(await sides.nth(0).isVisible()).toBe(false);
    await screenshot(page, 'compare-view-phone');
    expect(errors).toEqual([]);
    await context.close();

    // The same view in Chinese: its headings and the common line.
    const zh = await openPage(browser, server.url, { locale: 'zh-CN' });
    await zh.page.goto(`/compare?a=${encodeURIComponent(sourceId)}&b=${encodeURIComponent(forkId)}`);
    const zhView = zh.page.getByTestId('compare-view');
    await zhView.getByRole('heading', { name: '并排对比' }).waitFor();
    await zhView.getByRole('heading', { name: '最终答案' }).waitFor();
    expect(await zhView.locator('[data-compare-common]').innerText()).toContain(`${sourceSteps - 1} 步相同`);
    expect(await zhView.locator('[data-compare-side]').nth(0).textContent()).toContain('原会话');
    expect(zh.errors).toEqual([]);
    await zh.context.close();
  });
});
