// @vitest-environment node
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, screenshot } from './support/browser.js';
import { fetchSnapshot, waitForCompletion } from './support/chain-page.js';
import { createFirehoseSession } from './support/firehose.js';
import { useServerAndBrowser } from './support/shared-env.js';

// A chain as long as an agent writes in an hour, in real Chromium against the real server. The
// firehose agent (registered in bench mode) writes it at once: thought and action in turn, so no
// thoughts fold and every step is its own row on the page.
const STEPS = 640;
const DELTAS_PER_STEP = 10;
const TASK = `firehose rate=max count=${STEPS * DELTAS_PER_STEP} step=${DELTAS_PER_STEP} kinds=thought,action`;

const env = useServerAndBrowser({ INTERTHOUGHT_BENCH: '1' });

/** Chromium's find-in-page from script (non-standard, so absent from the DOM typings): true when the text was found and selected. */
type WindowWithFind = Window & { find?: (text: string) => boolean };

/** The step that holds the focus, by id and kind. */
function focusedStep(page: Page) {
  return page.evaluate(() => {
    const step = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[data-step-id]');
    return step ? { id: step.dataset.stepId, kind: step.dataset.kind } : null;
  });
}

/** Whether the step is drawn inside the window (at least partly). */
function inViewport(page: Page, stepId: string) {
  return page.evaluate((id) => {
    const box = document.querySelector(`[data-step-id="${id}"]`)?.getBoundingClientRect();
    return box !== undefined && box.bottom > 0 && box.top < window.innerHeight && box.height > 0;
  }, stepId);
}

describe('a long chain in Chromium', { timeout: 120_000 }, () => {
  it('keeps every step findable and reachable by keyboard, and corrects a far step', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await createFirehoseSession(env().server.url, TASK);
      await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await waitForCompletion(page, 60_000);
      const snapshot = await fetchSnapshot(page, sessionId);
      const chain = snapshot.chain;
      expect(chain).toHaveLength(STEPS + 1);
      // Every step is in the DOM, however far from the viewport.
      expect(await page.locator('.timeline > li > [data-step-id]').count()).toBe(STEPS + 1);

      // From the top, the last thought is thousands of pixels below: find-in-page still finds its text.
      await page.locator('main').click({ position: { x: 5, y: 300 } });
      await page.keyboard.press('g');
      await page.keyboard.press('g');
      expect(await focusedStep(page)).toEqual({ id: chain[0], kind: 'thought' });
      expect(await inViewport(page, chain[0]!)).toBe(true);
      const far = chain[STEPS - 2]!;
      expect(await inViewport(page, far)).toBe(false);
      const farText = `#${(STEPS - 2) * DELTAS_PER_STEP + 3} `;
      expect(await page.locator(`[data-step-id="${far}"] [data-step-text]`).textContent()).toContain(farText);
      expect(await page.evaluate((text) => (window as WindowWithFind).find?.(text) ?? false, farText)).toBe(true);
      expect(await page.evaluate(() => window.getSelection()?.anchorNode?.parentElement?.closest<HTMLElement>('[data-step-id]')?.dataset.stepId)).toBe(far);

      // j/k move one step at a time; G goes to the last step and brings it into view.
      await page.locator('main').click({ position: { x: 5, y: 300 } });
      await page.keyboard.press('g');
      await page.keyboard.press('g');
      await page.keyboard.press('j');
      expect(await focusedStep(page)).toEqual({ id: chain[1], kind: 'action' });
      await page.keyboard.press('k');
      expect(await focusedStep(page)).toEqual({ id: chain[0], kind: 'thought' });
      await page.keyboard.press('Shift+G');
      const last = chain[STEPS]!;
      expect(await focusedStep(page)).toEqual({ id: last, kind: 'final_answer' });
      expect(await inViewport(page, last)).toBe(true);
      expect(await inViewport(page, chain[0]!)).toBe(false);
      await screenshot(page, '16-long-chain-bottom');

      // Back up the chain by keyboard to a step far above the bottom, and correct it with e.
      await page.keyboard.press('g');
      await page.keyboard.press('g');
      for (let i = 0; i < 3; i++) await page.keyboard.press('j');
      const target = chain[3]!;
      expect(await focusedStep(page)).toEqual({ id: target, kind: 'action' });
      await page.keyboard.press('e');
      const editor = page.locator(`[data-step-id="${target}"] textarea`);
      await editor.waitFor();
      await editor.fill('A corrected action, far up a long chain.');
      await editor.press('Control+Enter');
      await page.getByRole('button', { name: new RegExp(`${STEPS + 1 - 3} steps superseded by your correction`) }).waitFor({ timeout: 30_000 });
      await waitForCompletion(page, 60_000);
      const corrected = await fetchSnapshot(page, sessionId);
      expect(corrected.chain).toHaveLength(STEPS + 1);
      const fixed = corrected.steps.find((step) => step.stepId === corrected.chain[3]);
      expect(fixed).toMatchObject({ status: 'corrected', content: 'A corrected action, far up a long chain.', correctionOf: target });
      expect(await page.locator(`.timeline > li > [data-step-id="${corrected.chain[3]}"][data-status="corrected"]`).textContent()).toContain('A corrected action, far up a long chain.');
      expect(await page.locator('.timeline > li > [data-step-id]').count()).toBe(STEPS + 1);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
