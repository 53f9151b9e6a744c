// @vitest-environment node
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, screenshot } from './support/browser.js';
import { fetchSnapshot, startFromHome, waitForCompletion } from './support/chain-page.js';
import { useServerAndBrowser } from './support/shared-env.js';

// Sub-agents end to end (PROTOCOL.md §24), in real Chromium against the real server and its demo
// agent, which hands each part of a multi-part task to a sub-agent of its own, in one batch.
const env = useServerAndBrowser();

const MULTI_PART_TASK = 'What is 17 * 23 + 4? Also, what is 15% of 240?';

const panel = (page: Page, name: string) => page.locator(`section[data-subagent-name="${name}"]`);

/** The step ids a sub-agent's panel shows, top to bottom. */
function panelStepIds(page: Page, name: string): Promise<string[]> {
  return panel(page, name).locator('article[data-step-id]').evaluateAll((articles) => articles.map((article) => (article as HTMLElement).dataset.stepId ?? ''));
}

/** Wait until both sub-agents and the session itself completed. */
async function waitForParts(page: Page): Promise<void> {
  await waitForCompletion(page, 45_000);
  await page.locator('section[data-subagent-name="part 1"][data-status="completed"]').waitFor();
  await page.locator('section[data-subagent-name="part 2"][data-status="completed"]').waitFor();
}

/**
 * Record every text the header's and the rail's running counts show, from the page's first script
 * on: the counts change as the sub-agents finish, faster than a test can look.
 */
async function recordRunningCounts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { runningCounts: string[] }).runningCounts = seen;
    const note = (): void => {
      for (const [where, selector] of [['header', 'header [data-subagents-running]'], ['rail', 'nav [data-subagents-running]']] as const) {
        const text = document.querySelector<HTMLElement>(selector)?.textContent?.trim();
        const entry = `${where}:${text ?? ''}`;
        if (text !== undefined && !seen.includes(entry)) seen.push(entry);
      }
    };
    new MutationObserver(note).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

/** The root's final answer, as the page shows it. */
const finalAnswer = (page: Page) => page.locator('.rows [data-row] > [data-kind="final_answer"] [data-step-text]').innerText();

describe('sub-agents in Chromium', { timeout: 90_000 }, () => {
  let sessionId = '';

  it('draws the two parts of a multi-part task as sub-agent panels side by side, running, then completed, with the joined answer', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await recordRunningCounts(page);
      sessionId = await startFromHome(page, MULTI_PART_TASK);
      await page.locator('[data-subagent-batch="2"]').waitFor();
      await page.locator('section[data-subagent-name="part 2"]').waitFor();
      await screenshot(page, 'subagents-01-running');

      await waitForParts(page);
      const first = await panel(page, 'part 1').boundingBox();
      const second = await panel(page, 'part 2').boundingBox();
      // Side by side: one row, part 1 on the left.
      expect(first && second && Math.abs(first.y - second.y) < 4 && first.x + first.width <= second.x).toBe(true);
      for (const name of ['part 1', 'part 2']) {
        expect(await panel(page, name).locator('[data-subagent-status]').innerText()).toBe('Completed');
        expect(await panel(page, name).locator('.agent').innerText()).toBe('demo');
        expect(await panel(page, name).locator('[data-kind="final_answer"]').count()).toBe(1);
      }
      const answer = await finalAnswer(page);
      expect(answer).toContain('395');
      expect(answer).toContain('36');
      expect(await page.locator('header [data-subagents-running]').count()).toBe(0);
      // While both ran, the header and the rail said so.
      const counts = await page.evaluate(() => (window as unknown as { runningCounts: string[] }).runningCounts);
      expect(counts).toContain('header:2 sub-agents running');
      expect(counts).toContain('rail:2 sub-agents running');

      // The page's panels are the server's scopes, step for step.
      const snapshot = await fetchSnapshot(page, sessionId);
      for (const subagent of snapshot.subagents ?? []) expect(await panelStepIds(page, subagent.name)).toEqual(subagent.chain);
      await page.locator('[data-subagent-batch="2"]').evaluate((batch) => batch.scrollIntoView({ block: 'start' }));
      await screenshot(page, 'subagents-02-completed');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('folds and unfolds a sub-agent with the keyboard', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await waitForParts(page);
      const toggle = panel(page, 'part 1').locator('button.toggle');
      const shown = (await panelStepIds(page, 'part 1')).length;
      expect(shown).toBeGreaterThan(1);
      await toggle.focus();
      await page.keyboard.press('Enter');
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await panelStepIds(page, 'part 1')).toEqual([]);
      expect((await panelStepIds(page, 'part 2')).length).toBeGreaterThan(1);
      await page.keyboard.press('Space');
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      expect((await panelStepIds(page, 'part 1')).length).toBe(shown);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('corrects the calculator call inside part 1 from its panel: part 1 and the final answer change, part 2 stays as it was', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await waitForParts(page);
      const part2Before = await panelStepIds(page, 'part 2');
      const part2Answer = await panel(page, 'part 2').locator('[data-kind="final_answer"] [data-step-text]').innerText();
      const call = panel(page, 'part 1').locator('article[data-kind="tool_call"]').first();
      await call.hover();
      await call.locator('[data-action="correct"]').click();
      const editor = call.locator('textarea');
      const input = JSON.parse(await editor.inputValue()) as { expression: string };
      expect(input.expression).toContain('17');
      await editor.fill(JSON.stringify({ expression: '17 * 23 + 5' }));
      await call.getByRole('button', { name: 'Save', exact: true }).click();

      // Part 1 re-runs from its corrected call; the parent joins again with a new answer.
      await page.waitForFunction(
        () => {
          const answer = document.querySelector<HTMLElement>('.rows [data-row] > [data-kind="final_answer"]');
          return answer?.dataset.status === 'completed' && (answer.querySelector<HTMLElement>('[data-step-text]')?.innerText ?? '').includes('396');
        },
        undefined,
        { polling: 'raf', timeout: 45_000 },
      );
      await waitForParts(page);
      expect(await panel(page, 'part 1').locator('[data-kind="final_answer"] [data-step-text]').innerText()).toContain('396');
      expect(await panel(page, 'part 1').locator('[data-superseded-count]').count()).toBe(1);
      expect(await panel(page, 'part 1').locator('[role="group"][aria-label="Branch 2 of 2"]').count()).toBe(1);
      expect(await finalAnswer(page)).toContain('36');
      // The sibling's sub-agent never ran again: the same steps, the same answer.
      expect(await panelStepIds(page, 'part 2')).toEqual(part2Before);
      expect(await panel(page, 'part 2').locator('[data-kind="final_answer"] [data-step-text]').innerText()).toBe(part2Answer);

      // Its branch picker walks part 1's branches only.
      await panel(page, 'part 1').getByRole('button', { name: 'Previous branch' }).click();
      expect(await panel(page, 'part 1').innerText()).toContain('earlier branch of this sub-agent');
      expect(await panel(page, 'part 1').locator('[data-kind="final_answer"] [data-step-text]').innerText()).toContain('395');
      expect(await panelStepIds(page, 'part 2')).toEqual(part2Before);
      await screenshot(page, 'subagents-03-corrected');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows parallel sub-agents as tabs on a phone', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    try {
      await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await waitForCompletion(page, 45_000);
      const tabs = page.getByRole('tablist', { name: 'Sub-agents' }).getByRole('tab');
      await tabs.first().waitFor();
      expect(await tabs.allInnerTexts()).toEqual(['part 1', 'part 2']);
      expect(await tabs.first().getAttribute('aria-selected')).toBe('true');
      expect(await panel(page, 'part 1').count()).toBe(1);
      expect(await panel(page, 'part 2').count()).toBe(0);
      await tabs.first().focus();
      await page.keyboard.press('ArrowRight');
      expect(await tabs.nth(1).getAttribute('aria-selected')).toBe('true');
      expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('part 2');
      await panel(page, 'part 2').waitFor();
      expect(await panel(page, 'part 1').count()).toBe(0);
      await screenshot(page, 'subagents-04-phone-tabs');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('speaks Chinese in the sub-agent panels', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url, { locale: 'zh-CN' });
    try {
      await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await waitForParts(page);
      expect(await page.locator('[data-subagent-batch="2"] .batch-head').innerText()).toBe('2 个子代理并行');
      expect(await panel(page, 'part 1').getAttribute('aria-label')).toBe('子代理 part 1');
      expect(await panel(page, 'part 1').locator('[data-subagent-status]').innerText()).toBe('已完成');
      expect(await panel(page, 'part 1').locator('[data-subagent-progress]').innerText()).toMatch(/^\d+ 步$/);
      await screenshot(page, 'subagents-05-zh');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('decides a call inside a waiting sub-agent from its panel, and stops the other one with its Stop button', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const id = await startFromHome(page, MULTI_PART_TASK, { askBeforeTools: true });
      // Every call waits, the delegate calls of the root included: approve both.
      for (const step of [2, 3]) {
        const approve = page.getByRole('button', { name: `Approve step ${step}: run delegate as proposed` });
        await approve.waitFor({ timeout: 20_000 });
        await approve.click();
        await approve.waitFor({ state: 'detached' });
      }
      // Each sub-agent then waits on its own calculator call, in its own panel.
      for (const name of ['part 1', 'part 2']) await page.locator(`section[data-subagent-name="${name}"][data-status="waiting"]`).waitFor({ timeout: 20_000 });
      expect(await panel(page, 'part 1').locator('[data-subagent-status]').innerText()).toBe('Waiting for you');
      expect(await panel(page, 'part 1').getByRole('button', { name: /^Approve step \d+: run / }).count()).toBe(1);
      await screenshot(page, 'subagents-06-waiting');

      await panel(page, 'part 1').getByRole('button', { name: /^Approve step \d+: run / }).click();
      await page.locator('section[data-subagent-name="part 1"][data-status="completed"]').waitFor({ timeout: 20_000 });
      expect(await panel(page, 'part 1').locator('[data-kind="final_answer"] [data-step-text]').innerText()).toContain('395');
      // Part 2 still waits for its decision; stop it instead.
      expect(await panel(page, 'part 2').getAttribute('data-status')).toBe('waiting');
      await panel(page, 'part 2').getByRole('button', { name: 'Stop the sub-agent part 2' }).click();
      await page.locator('section[data-subagent-name="part 2"][data-status="cancelled"]').waitFor({ timeout: 20_000 });
      expect(await panel(page, 'part 2').locator('[data-subagent-status]').innerText()).toBe('Cancelled');
      expect(await panel(page, 'part 2').locator('[data-action="cancel-subagent"]').count()).toBe(0);

      // The parent goes on: it joins part 1's answer and part 2's cancellation.
      await waitForCompletion(page, 45_000);
      expect(await finalAnswer(page)).toContain('395');
      const snapshot = await fetchSnapshot(page, id);
      expect(snapshot.subagents?.map((subagent) => [subagent.name, subagent.status])).toEqual([
        ['part 1', 'completed'],
        ['part 2', 'cancelled'],
      ]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
