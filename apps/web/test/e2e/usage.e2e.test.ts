// @vitest-environment node
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { answerTurn, content, reasoning, toolCall, toolTurn, usage, withUsage } from '../../../server/test/agents/openai/support/wire.js';
import { openPage, screenshot } from './support/browser.js';
import { fetchSnapshot, waitForCompletion } from './support/chain-page.js';
import { useFakeOpenAIServerAndBrowser } from './support/shared-env.js';

// Tokens, cost and budgets (PROTOCOL.md §22) in real Chromium: the real server runs the openai
// agent against a fake endpoint that reports usage as OpenAI does, with prices and a budget set.
const PRICES = { 'test-model': { input: 2, output: 10, cached: 0.5 } };
const BUDGET = 3_000;

const env = useFakeOpenAIServerAndBrowser((fake) => ({
  OPENAI_BASE_URL: fake.baseURL,
  INTERTHOUGHT_MODEL: 'test-model',
  INTERTHOUGHT_PRICES: JSON.stringify(PRICES),
  INTERTHOUGHT_MAX_TOKENS_PER_SESSION: String(BUDGET),
}));

/** Start a session with the openai agent from the home page; resolves with its id once its page is open. */
async function startWithOpenAI(page: Page, task: string): Promise<string> {
  await page.goto('/');
  // The radio is drawn by its label (the input itself is invisible).
  await page.locator('label.agent', { hasText: 'openai' }).click();
  await expect.poll(() => page.getByRole('radio', { name: /openai/ }).isChecked()).toBe(true);
  await page.getByRole('textbox', { name: /What should the agent work on|让智能体做什么/ }).fill(task);
  await page.getByRole('button', { name: /^(Start|开始)/ }).click();
  await page.waitForURL(/\/sessions\/[^/]+$/);
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
}

/** The usage line of the step of `kind` on the live chain (what is shown; screen readers get it spelled out). */
const usageOf = (page: Page, kind: string) => page.locator(`.rows [data-row] > [data-kind="${kind}"] [data-usage] > [aria-hidden="true"]`);
const usageTitleOf = (page: Page, kind: string) => page.locator(`.rows [data-row] > [data-kind="${kind}"] [data-usage]`).getAttribute('title');

describe('usage in Chromium', { timeout: 60_000 }, () => {
  it('shows each call on its step, the totals with their cost in the header, after a reload too; a budget stop is explained and a follow-up refused', async () => {
    const { server, browser, fake } = env();
    // Call 1: (200 × 2 + 800 × 0.5 + 40 × 10) / 1e6 = $0.0012; call 2: (1,100 × 2 + 6 × 10) / 1e6 = $0.00226.
    fake.reply(
      withUsage(toolTurn(...reasoning('I should compute 15% of 240.'), ...toolCall(0, 'call_1', 'calculator', '{"expression":"240 * 15%"}')), usage(1000, 40, { cached: 800 }), {
        firstDeltaDelayMs: 300,
      }),
      withUsage(answerTurn(...content('15% of 240 is 36.')), usage(1100, 6)),
    );
    const { page, errors, context } = await openPage(browser, server.url);
    const sessionId = await startWithOpenAI(page, 'What is 15% of 240?');
    await waitForCompletion(page);

    await expect.poll(() => usageOf(page, 'tool_call').innerText()).toMatch(/^1,000 → 40 tokens · first token 0\.\d+s · \$0\.0012$/);
    expect(await usageOf(page, 'final_answer').innerText()).toMatch(/^1,100 → 6 tokens · first token \d+(\.\d)?s · \$0\.0023$/);
    await expect(usageOf(page, 'thought').count()).resolves.toBe(0);
    await expect(usageOf(page, 'observation').count()).resolves.toBe(0);
    expect(await usageTitleOf(page, 'tool_call')).toBe('Model test-model · 1,000 input tokens (800 from cache), 40 output tokens · whole answer ' + (await wholeAnswer(page)));
    const totals = page.locator('[data-session-usage]');
    expect((await totals.innerText()).trim()).toBe('2,146 tokens · $0.0035');
    expect(await totals.getAttribute('title')).toBe('2 model calls · 2,100 input tokens (800 from cache), 46 output tokens');
    await screenshot(page, 'usage-session');

    // The snapshot the page reloads from carries the same totals.
    const snapshot = await fetchSnapshot(page, sessionId);
    expect(snapshot.session.usage).toMatchObject({ inputTokens: 2100, outputTokens: 46, cachedTokens: 800, calls: 2 });
    await page.reload();
    await page.locator('[data-session-usage]').waitFor();
    expect((await page.locator('[data-session-usage]').innerText()).trim()).toBe('2,146 tokens · $0.0035');
    expect(await usageOf(page, 'tool_call').innerText()).toContain('$0.0012');
    await context.close();

    // A session whose first call passes the server's budget stops, explained in Chinese.
    fake.reply(withUsage(answerTurn(...content('36')), usage(2990, 20)));
    const zh = await openPage(browser, server.url, { locale: 'zh-CN' });
    await startWithOpenAI(zh.page, 'What is 15% of 240?');
    const banner = zh.page.locator('[data-failure="budget"]');
    await banner.waitFor();
    expect((await banner.innerText()).trim()).toBe('此会话的 token 预算已用完（已用 3,010 tokens），因此已停止。从任一步骤分叉，即可用新的预算继续。');
    await zh.page.locator('[data-session-status="failed"]').waitFor();
    expect((await zh.page.locator('[data-session-usage]').innerText()).trim()).toBe('3,010 tokens · US$0.0062');

    // A follow-up would start a run: the server refuses it, and the composer says why.
    const requests = fake.requests.length;
    await zh.page.getByRole('textbox', { name: '给智能体发消息' }).fill('再算一次');
    await zh.page.keyboard.press('Enter');
    await zh.page.getByText('此会话的 token 预算已用完，无法再运行。从任一步骤分叉，即可用新的预算继续。').waitFor();
    expect(fake.requests.length).toBe(requests);
    await screenshot(zh.page, 'usage-budget-zh');
    await zh.context.close();
    expect(errors.filter((error) => !error.includes('BUDGET_EXCEEDED'))).toEqual([]);
  });
});

/** The whole answer's time the tool call's tooltip names (measured by the server, so read back from the snapshot). */
async function wholeAnswer(page: Page): Promise<string> {
  const sessionId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  const snapshot = await fetchSnapshot(page, sessionId);
  const call = snapshot.steps.find((step) => step.kind === 'tool_call')!;
  const seconds = (call.usage!.durationMs ?? 0) / 1000;
  return `${new Intl.NumberFormat('en-US', { style: 'unit', unit: 'second', unitDisplay: 'narrow', maximumFractionDigits: 1 }).format(seconds)}`;
}
