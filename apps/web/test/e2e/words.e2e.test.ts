// @vitest-environment node
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, screenshot } from './support/browser.js';
import { fetchSnapshot, liveSteps, openCorrection, startFromHome, waitForCompletion } from './support/chain-page.js';
import { PERCENT_TASK } from './support/e2e-env.js';
import { useServerAndBrowser } from './support/shared-env.js';

// Words people use (issue #30): attribution, step numbers, local times, forks, the agent picker's
// language and a call edited before it ran, in real Chromium against the real server without users.
const env = useServerAndBrowser();

const CALL = '.rows [data-row] > [data-kind="tool_call"]';
const PROMPT = `${CALL} [data-approval="pending"]`;
/** A connection id as the server makes them (`hello.connectionId`). */
const CONNECTION_ID = /\bc_[A-Za-z0-9_-]{8,}\b/;

async function exportMarkdown(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Export or import a session' }).click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: /Export as Markdown/ }).click()]);
  return readFile((await download.path())!, 'utf8');
}

describe('words people use, in Chromium', { timeout: 90_000 }, () => {
  it('says "you" for a correction made in another browser profile, and the export names steps by number, in local time, with no connection id', async () => {
    const author = await openPage(env().browser, env().server.url);
    // Another profile: its own storage and connection. Without users it is the same person.
    const other = await openPage(env().browser, env().server.url, { timezoneId: 'Europe/Berlin' });
    try {
      const sessionId = await startFromHome(author.page, PERCENT_TASK);
      await waitForCompletion(author.page);
      const editor = await openCorrection(author.page, CALL);
      await editor.fill(JSON.stringify({ expression: '240 * 0.25' }));
      await author.page.getByRole('button', { name: 'Save', exact: true }).click();
      await waitForCompletion(author.page);

      await other.page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await waitForCompletion(other.page);
      const corrected = other.page.locator('.rows [data-row] > [data-status="corrected"]');
      await corrected.waitFor();
      const badge = await corrected.textContent();
      expect(badge).toContain('corrected by you');
      expect(badge).not.toContain('another window');

      const transcript = await exportMarkdown(other.page);
      expect(transcript).toMatch(/^### Step 1 · Thought$/m);
      expect(transcript).toMatch(/^### Step 3 · Tool call · `calculator`$/m);
      expect(transcript).toMatch(/> \*\*Corrected\*\* by you at [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M\./);
      expect(transcript).toContain('times in Europe/Berlin');
      expect(transcript).not.toMatch(CONNECTION_ID);
      expect(transcript).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
      expect(author.errors).toEqual([]);
      expect(other.errors).toEqual([]);
    } finally {
      await author.context.close();
      await other.context.close();
    }
  });

  it('marks a fork in the rail with the step it was forked at; its source stays unmarked', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sourceId = await startFromHome(page, PERCENT_TASK);
      await waitForCompletion(page);
      const steps = await liveSteps(page);
      const second = page.locator(`.rows [data-row] > [data-step-id="${steps[1]!.id}"]`);
      await second.hover();
      await second.locator('[data-action="fork"]').click();
      await page.waitForURL((url) => !url.pathname.endsWith(sourceId));
      const forkId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');

      const mark = page.locator(`nav a[data-session-id="${forkId}"] [data-fork]`);
      await mark.waitFor();
      expect(await mark.locator('[data-fork-short]').innerText()).toBe('fork · step 2');
      expect(await mark.getAttribute('title')).toBe(`Fork of “${PERCENT_TASK}” at step 2`);
      expect(await page.locator(`nav a[data-session-id="${sourceId}"] [data-fork]`).count()).toBe(0);
      await screenshot(page, 'words-fork-in-rail');

      const transcript = await exportMarkdown(page);
      expect(transcript).toContain(`forked from session ${sourceId} at step 2`);
      expect(transcript).not.toContain(steps[1]!.id);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the agents’ descriptions in Chinese on the 中文 home page', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url, { locale: 'zh-CN' });
    try {
      await page.goto('/');
      const demo = page.locator('label.agent', { hasText: 'demo' });
      await demo.waitFor();
      await expect.poll(() => demo.innerText()).toContain('离线演示智能体');
      expect(await demo.innerText()).not.toContain('Offline demo agent');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says a call edited before it ran was edited before it ran: no superseded fold, no branch picker', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(page, PERCENT_TASK, { askBeforeTools: true });
      await page.locator(PROMPT).waitFor({ timeout: 20_000 });
      await page.locator(`${PROMPT} [data-action="edit"]`).click();
      const editor = page.locator(`${CALL} textarea`);
      await editor.waitFor();
      await editor.fill(JSON.stringify({ expression: '240 * 0.25' }));
      await page.getByRole('button', { name: 'Approve with changes', exact: true }).click();
      await page.locator(`${CALL}[data-status="corrected"]`).waitFor({ timeout: 15_000 });
      await waitForCompletion(page);

      expect(await page.locator(`${CALL} [data-approval="edited"]`).innerText()).toMatch(/^Edited by you before it ran · \S/);
      expect(await page.getByRole('button', { name: /superseded/ }).count()).toBe(0);
      expect(await page.locator(`${CALL} .picker`).count()).toBe(0);
      // The proposal is there on demand.
      await page.locator(`${CALL} .diff-toggle`).click();
      expect(await page.locator(`${CALL} del`).count()).toBeGreaterThan(0);
      const snapshot = await fetchSnapshot(page, sessionId);
      expect(snapshot.steps.find((step) => step.stepId === snapshot.chain[2])?.approval).toMatchObject({ state: 'edited' });
      await screenshot(page, 'words-edited-before-run');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
