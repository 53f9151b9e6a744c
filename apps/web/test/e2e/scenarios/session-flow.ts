import { expect, it } from 'vitest';
import { openPage, screenshot } from '../support/browser.js';
import { expectChainMatchesSnapshot, fetchSnapshot, liveSteps, openCorrection, startFromHome, waitForCompletion, waitForStreaming } from '../support/chain-page.js';
import { TRAIN_TASK, type GetEnv } from '../support/e2e-env.js';

/** Start from the form, watch it stream, correct the tool call, read the diff. */
export function sessionFlowScenarios(env: GetEnv): void {
  it('starts a session from the home form and streams every step to a final answer', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await page.goto('/');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('What should the agent work on?');
      await page.getByRole('radio', { name: /demo/ }).waitFor({ state: 'attached' });
      await screenshot(page, '01-home');

      await page.getByRole('button', { name: TRAIN_TASK }).click();
      expect(await page.getByRole('textbox', { name: /What should the agent work on/ }).inputValue()).toBe(TRAIN_TASK);
      await page.getByRole('button', { name: /^Start/ }).click();
      await page.waitForURL(/\/sessions\//);
      const sessionId = decodeURIComponent(page.url().split('/').pop() ?? '');

      // Caught mid-stream, once a step or more is done and the next one is being written.
      await waitForStreaming(page, 2);
      await screenshot(page, '02-streaming');
      await waitForCompletion(page);

      const steps = await liveSteps(page);
      expect(steps.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
      expect(steps.every((step) => step.status === 'completed')).toBe(true);
      expect(steps[4]?.text).toContain('72');
      expect(await page.locator('.final').count()).toBe(1);
      expectChainMatchesSnapshot(steps, await fetchSnapshot(page, sessionId));

      // The rail lists it, highlighted as the current session.
      const current = page.locator(`nav a[data-session-id="${sessionId}"]`);
      expect(await current.getAttribute('aria-current')).toBe('page');
      expect(await current.textContent()).toContain('A train travels');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('corrects a tool call: later steps fold away and the tool re-runs on the new input', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(page, TRAIN_TASK);
      await waitForCompletion(page);

      const editor = await openCorrection(page, '.rows [data-row] > [data-kind="tool_call"]');
      expect(JSON.parse(await editor.inputValue())).toEqual({ expression: '180 / 2.5' });
      await screenshot(page, '03-correction-editor');

      // Broken JSON is caught before anything is sent, with the parse error shown inline.
      await editor.fill('{"expression": "180 / 3"');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('[data-testid="editor-problem"]').waitFor();
      expect(await page.locator('[data-testid="editor-problem"]').textContent()).toMatch(/not valid JSON/);
      expect((await fetchSnapshot(page, sessionId)).session.revision).toBe(0);

      await editor.fill('{\n  "expression": "180 / 3"\n}');
      await editor.press('Control+Enter');
      const fold = page.getByRole('button', { name: /3 steps superseded by your correction/ });
      await fold.waitFor({ timeout: 15_000 });
      await waitForCompletion(page);

      const steps = await liveSteps(page);
      expect(steps.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
      expect(steps[2]?.status).toBe('corrected');
      expect(steps[3]?.text).toContain('60');
      expect(steps[4]?.text).toContain('60');
      const snapshot = await fetchSnapshot(page, sessionId);
      expectChainMatchesSnapshot(steps, snapshot);
      expect(snapshot.session.revision).toBe(1);
      await screenshot(page, '04-after-correction');

      // The corrected step tells who and when, and shows a word-level diff on demand.
      const corrected = page.locator('.rows [data-row] > [data-status="corrected"]');
      expect(await corrected.textContent()).toContain('corrected by you');
      await corrected.getByRole('button', { name: 'Show changes' }).click();
      expect(await corrected.locator('del').textContent()).toBe('2.5');
      expect(await corrected.locator('ins').textContent()).toBe('3');

      // Superseded steps, when unfolded, are struck through and offer no actions.
      await fold.click();
      const superseded = page.locator('[data-superseded-count] article');
      expect(await superseded.count()).toBe(3);
      expect(await superseded.evaluateAll((els) => els.map((el) => (el as HTMLElement).dataset.status))).toEqual(['invalidated', 'invalidated', 'invalidated']);
      expect(await page.locator('[data-superseded-count] article button').count()).toBe(0);
      await screenshot(page, '05-diff-and-superseded');

      // The branch picker shows the earlier branch, read-only, and returns to the live chain.
      await corrected.getByRole('button', { name: 'Previous branch' }).click();
      await page.getByText('You are looking at an earlier branch').waitFor();
      expect(await page.locator('.rows [data-row] > [data-kind="observation"] [data-step-text]').innerText()).toContain('72');
      await page.getByRole('button', { name: 'Back to the live chain' }).click();
      expect(await page.locator('.rows [data-row] > [data-kind="observation"] [data-step-text]').innerText()).toContain('60');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('keeps agent text inert: an XSS payload in a correction shows as text and never runs', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await startFromHome(page, TRAIN_TASK);
      await waitForCompletion(page);
      const payload = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> [link](javascript:window.__xss=3)';
      const editor = await openCorrection(page, '.rows [data-row] > [data-kind="thought"]');
      await editor.fill(payload);
      await editor.press('Control+Enter');
      const thought = page.locator('.rows [data-row] > [data-kind="thought"][data-status="corrected"]');
      await thought.waitFor({ timeout: 15_000 });
      await waitForCompletion(page);

      expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
      const text = await thought.locator('[data-step-text]').innerText();
      expect(text).toContain('<img src=x onerror="window.__xss=1">');
      expect(text).toContain('<script>window.__xss=2</script>');
      expect(await page.locator('.rows img, .rows script').count()).toBe(0);
      expect(await thought.locator('a').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a designed "not found" state for an unknown session', async () => {
    const { page, context } = await openPage(env().browser, env().server.url);
    try {
      await page.goto('/sessions/no-such-session');
      await page.getByRole('heading', { name: 'Session not found' }).waitFor();
      await page.getByRole('link', { name: 'Back to home' }).click();
      await page.waitForURL((url) => url.pathname === '/');
    } finally {
      await context.close();
    }
  });
}
