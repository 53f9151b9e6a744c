import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { openPage, screenshot } from '../support/browser.js';
import { fetchSnapshot, liveSteps, startFromHome, waitForCompletion } from '../support/chain-page.js';
import { APPLES_TASK, PERCENT_TASK, type GetEnv } from '../support/e2e-env.js';

/** The tool call on the live chain (a corrected one replaces it there). */
const CALL = '.rows [data-row] > [data-kind="tool_call"]';
const PROMPT = `${CALL} [data-approval="pending"]`;

/** Wait until the session waits for the user: the calculator call offers its decision. */
async function waitForApproval(page: Page, timeout = 20_000): Promise<void> {
  await page.locator(PROMPT).waitFor({ timeout });
  await page.locator('[data-session-status="waiting"]').waitFor({ timeout });
}

/** The header's lifecycle buttons that can be pressed, by accessible name. */
async function enabledLifecycleButtons(page: Page): Promise<string[]> {
  return page.$$eval('.session-header .controls button:not([disabled])', (buttons) => buttons.map((button) => button.getAttribute('aria-label') ?? ''));
}

/**
 * Approvals before a tool runs (PROTOCOL.md §19), through the home page's "Ask me before each
 * tool runs": approve, reject with a reason, edit, decide from another tab, reload while waiting.
 */
export function approvalScenarios(env: GetEnv): void {
  it('asks before the calculator runs; approving runs it and the session finishes', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(page, PERCENT_TASK, { askBeforeTools: true });
      await waitForApproval(page);

      // Nothing ran: the call is the last step, its input shown in full.
      const waiting = await liveSteps(page);
      expect(waiting.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call']);
      expect(JSON.parse(waiting[2]!.text)).toEqual(JSON.parse((await fetchSnapshot(page, sessionId)).steps.find((step) => step.kind === 'tool_call')!.content));
      expect(await page.locator('[data-session-status]').innerText()).toBe('Waiting for you');
      expect(await enabledLifecycleButtons(page)).toEqual(['Cancel the session for good', 'Find in the chain', 'Outline of the chain', 'Export or import a session', 'Delete session']);
      expect(await page.locator('.banner.waiting').innerText()).toContain('The agent wants to run calculator.');
      expect(await page.title()).toBe(`⏸ Waiting for you · ${PERCENT_TASK}`);
      // The rail says it in words, for someone looking at another session.
      const entry = page.locator(`nav a[data-session-id="${sessionId}"]`);
      await entry.locator('.dot.status-waiting').waitFor();
      expect(await entry.locator('.meta').innerText()).toMatch(/^Waiting for you · demo/);
      await screenshot(page, '06-approval-waiting');

      await page.locator(`${PROMPT} [data-action="approve"]`).click();
      await waitForCompletion(page);
      const steps = await liveSteps(page);
      expect(steps.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
      expect(steps[3]?.text).toContain('36');
      expect(steps[4]?.text).toContain('36');
      expect(await page.locator(`${CALL} [data-approval="approved"]`).innerText()).toMatch(/^Approved by you · \S/);
      expect(await page.locator(PROMPT).count()).toBe(0);
      expect(await page.title()).toBe(`${PERCENT_TASK} · Interthought`);

      const snapshot = await fetchSnapshot(page, sessionId);
      expect(snapshot.session.status).toBe('completed');
      expect(snapshot.steps.find((step) => step.kind === 'tool_call')?.approval).toMatchObject({ state: 'approved' });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('rejects from the keyboard with a reason: the refusal and the reason show, and the session finishes', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(page, PERCENT_TASK, { askBeforeTools: true });
      await waitForApproval(page);

      // G focuses the latest step, the waiting call; r opens the reason; Enter rejects.
      await page.locator('main').focus();
      await page.keyboard.press('G');
      expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.kind)).toBe('tool_call');
      await page.keyboard.press('r');
      const reason = page.locator(`${PROMPT} input[name="reason"]`);
      await reason.waitFor();
      expect(await reason.evaluate((input) => input === document.activeElement)).toBe(true);
      await reason.fill('Not on production data.');
      await screenshot(page, '07-approval-reject-reason');
      await reason.press('Enter');

      await waitForCompletion(page);
      const steps = await liveSteps(page);
      expect(steps.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
      const refusal = page.locator('.rows [data-row] > [data-kind="observation"]');
      expect(await refusal.getAttribute('class')).toContain('refused');
      expect(await refusal.locator('[data-refusal]').innerText()).toContain('You rejected this call, so calculator did not run.');
      expect(await refusal.locator('[data-refusal]').innerText()).toContain('Why: Not on production data.');
      const record = await page.locator(`${CALL} [data-approval="rejected"]`).innerText();
      expect(record).toMatch(/^Rejected by you · \S/);
      expect(record).toContain('Why: Not on production data.');
      // The agent's answer knows it was refused, and why.
      expect(steps[4]?.text).toContain('Not on production data.');
      await screenshot(page, '08-approval-rejected');

      const snapshot = await fetchSnapshot(page, sessionId);
      const observation = snapshot.steps.find((step) => step.kind === 'observation');
      expect(observation?.result).toMatchObject({ refused: true, reason: 'Not on production data.' });
      expect(snapshot.steps.find((step) => step.kind === 'tool_call')?.approval).toMatchObject({ state: 'rejected', reason: 'Not on production data.' });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('edits the waiting call: the edited input runs instead, and the step says it was edited and approved', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(page, PERCENT_TASK, { askBeforeTools: true });
      await waitForApproval(page);

      await page.locator(`${PROMPT} [data-action="edit"]`).click();
      const editor = page.locator(`${CALL} textarea`);
      await editor.waitFor();
      const proposed = JSON.parse(await editor.inputValue()) as { expression: string };
      await editor.fill(JSON.stringify({ expression: '240 * 0.25' }));
      await page.getByRole('button', { name: 'Approve with changes', exact: true }).click();

      await page.locator(`${CALL}[data-status="corrected"]`).waitFor({ timeout: 15_000 });
      await waitForCompletion(page);
      const steps = await liveSteps(page);
      expect(steps.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
      expect(JSON.parse(steps[2]!.text)).toEqual({ expression: '240 * 0.25' });
      expect(proposed.expression).not.toBe('240 * 0.25');
      expect(steps[3]?.text).toContain('60');
      expect(steps[4]?.text).toContain('60');
      expect(await page.locator(`${CALL} [data-approval="edited"]`).innerText()).toMatch(/^Edited by you before it ran · \S/);

      const snapshot = await fetchSnapshot(page, sessionId);
      const call = snapshot.steps.find((step) => step.stepId === snapshot.chain[2]);
      expect(call?.approval).toMatchObject({ state: 'edited' });
      expect(snapshot.session.revision).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a decision made in one tab live in another, and the waiting session in the other tab’s rail and title', async () => {
    const author = await openPage(env().browser, env().server.url);
    const watcher = await openPage(env().browser, env().server.url);
    try {
      await watcher.page.goto('/');
      const sessionId = await startFromHome(author.page, PERCENT_TASK, { askBeforeTools: true });
      await waitForApproval(author.page);

      // The other tab, on its home page, learns of it from the session list.
      const entry = watcher.page.locator(`nav a[data-session-id="${sessionId}"]`);
      await entry.locator('.dot.status-waiting').waitFor({ timeout: 15_000 });
      await watcher.page.waitForFunction(() => document.title === '⏸ 1 session waits for you · Interthought');

      await entry.click();
      await waitForApproval(watcher.page);
      await author.page.locator(`${PROMPT} [data-action="approve"]`).click();

      // The watcher never touched anything: the decision arrives through the event stream.
      await watcher.page.locator(`${CALL} [data-approval="approved"]`).waitFor({ timeout: 15_000 });
      expect(await watcher.page.locator(PROMPT).count()).toBe(0);
      expect(await watcher.page.locator(`${CALL} [data-approval="approved"]`).innerText()).toMatch(/^Approved by you · \S/);
      await Promise.all([waitForCompletion(author.page), waitForCompletion(watcher.page)]);
      expect((await liveSteps(watcher.page))[3]?.text).toContain('36');
      expect(author.errors).toEqual([]);
      expect(watcher.errors).toEqual([]);
    } finally {
      await author.context.close();
      await watcher.context.close();
    }
  });

  it('says it all in Chinese, and a cancel while waiting means the call never runs', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url, { locale: 'zh-CN', colorScheme: 'dark' });
    try {
      const sessionId = await startFromHome(page, APPLES_TASK, { askBeforeTools: true });
      await waitForApproval(page);
      expect(await page.locator('[data-session-status]').innerText()).toBe('等待你的决定');
      expect(await page.title()).toBe(`⏸ 等待你的决定 · ${APPLES_TASK}`);
      expect(await page.locator(PROMPT).innerText()).toContain('等待你的批准');
      expect(await page.locator(`nav a[data-session-id="${sessionId}"] .meta`).innerText()).toMatch(/^等待你的决定 · demo/);
      await screenshot(page, '09-approval-waiting-dark-zh');

      await page.getByRole('button', { name: '永久取消此会话' }).click();
      await page.locator('[data-session-status="cancelled"]').waitFor({ timeout: 15_000 });
      expect(await page.locator(PROMPT).count()).toBe(0);
      expect(await page.locator(CALL).innerText()).toContain('未运行：这次调用等待期间，会话已被取消。');
      const snapshot = await fetchSnapshot(page, sessionId);
      expect(snapshot.steps.some((step) => step.kind === 'observation')).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('still waits after a reload, and a decision after the reload works', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(page, PERCENT_TASK, { askBeforeTools: true });
      await waitForApproval(page);
      await page.reload();
      await waitForApproval(page);
      expect(await page.title()).toBe(`⏸ Waiting for you · ${PERCENT_TASK}`);
      expect((await fetchSnapshot(page, sessionId)).session.status).toBe('waiting');

      // "Go to the call" focuses it; a approves it.
      await page.locator('[data-action="go-to-call"]').click();
      expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.kind)).toBe('tool_call');
      await page.keyboard.press('a');
      await waitForCompletion(page);
      expect((await liveSteps(page))[3]?.text).toContain('36');
      expect(await page.locator(`${CALL} [data-approval="approved"]`).innerText()).toMatch(/^Approved by you · \S/);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
}
