// @vitest-environment node
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, screenshot } from './support/browser.js';
import { liveSteps, startFromHome, waitForCompletion } from './support/chain-page.js';
import { PERCENT_TASK } from './support/e2e-env.js';
import { useServerAndBrowser } from './support/shared-env.js';

// What a careful trial of the app found (issue #30), each kept from coming back, in real Chromium
// against the real server and its demo agent: nothing hides behind the composer or the "Jump to
// latest" pill, a phone's step headers keep one line, and the keyboard reaches a step's actions in
// a handful of keys with the focus going back to the step.
const env = useServerAndBrowser();

const RECIPE_TASK = 'A recipe needs 250 g flour for 4 people. How much for 10 people, and what is that in kilograms?';
const CARD = '.rows [data-row] > article[data-step-id]';
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

function intersects(a: Box, b: Box): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

async function box(page: Page, selector: string): Promise<Box> {
  return page.locator(selector).first().evaluate((element) => {
    const { top, bottom, left, right } = element.getBoundingClientRect();
    return { top, bottom, left, right };
  });
}

/** What has the focus: a step's card (its id), a control (its data-action), or a field (its name). */
function focused(page: Page): Promise<{ stepId?: string; kind?: string; action?: string; name?: string; inCard: boolean }> {
  return page.evaluate(() => {
    const active = document.activeElement as HTMLElement | null;
    return {
      ...(active?.dataset.stepId ? { stepId: active.dataset.stepId, kind: active.dataset.kind } : {}),
      ...(active?.dataset.action ? { action: active.dataset.action } : {}),
      ...(active?.getAttribute('name') ? { name: active.getAttribute('name')! } : {}),
      inCard: active?.closest('[data-step-id]') != null,
    };
  });
}

/** Scroll the page's scroller by `dy` px (positive: down). */
async function scrollBy(page: Page, dy: number): Promise<void> {
  await page.evaluate((by) => {
    const scroller = document.querySelector<HTMLElement>('[data-scroller]')!;
    scroller.scrollTop += by;
  }, dy);
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

describe('the trial’s findings in Chromium (issue #30)', { timeout: 90_000 }, () => {
  it('focuses the home page’s task box on load, so "?" typed there is text, not the shortcuts overlay', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await page.goto('/');
      const box = page.getByRole('textbox', { name: /What should the agent work on/ });
      await box.waitFor();
      await expect.poll(() => focused(page)).toMatchObject({ name: 'task' });
      await page.keyboard.type('? how');
      expect(await box.inputValue()).toBe('? how');
      expect(await page.locator('dialog[open]').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('scrolls the reject-reason panel fully into view above the composer: Back and Reject are not behind it', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url, { viewport: { width: 1280, height: 640 } });
    try {
      await startFromHome(page, PERCENT_TASK, { askBeforeTools: true });
      const prompt = page.locator('[data-approval="pending"]');
      await prompt.waitFor({ timeout: 20_000 });
      await page.locator('[data-session-status="waiting"]').waitFor();
      // The trial's place: the call's buttons just above the composer, the reject panel opening downwards behind it.
      const dockTop = (await box(page, '.dock')).top;
      await scrollBy(page, (await box(page, '[data-approval="pending"] [data-action="reject"]')).bottom - dockTop + 4);
      await page.locator('[data-approval="pending"] [data-action="reject"]').click();
      await page.locator('[data-action="confirm-reject"]').waitFor();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const dock = await box(page, '.dock');
      const header = await box(page, '.session-header');
      for (const selector of ['[data-approval="pending"] form button[type="button"]', '[data-action="confirm-reject"]', '[data-approval="pending"] input[name="reason"]']) {
        const control = await box(page, selector);
        expect(intersects(control, dock), selector).toBe(false);
        expect(control.top, selector).toBeGreaterThanOrEqual(header.bottom);
      }
      await screenshot(page, 'trial-reject-panel-above-composer');

      // Esc from the reason goes back to the call's card, as Back does.
      await page.keyboard.press('Escape');
      await page.locator('[data-action="confirm-reject"]').waitFor({ state: 'detached' });
      expect(await focused(page)).toMatchObject({ kind: 'tool_call' });
      await page.locator('[data-approval="pending"] [data-action="reject"]').click();
      await page.getByRole('button', { name: 'Back' }).click();
      expect(await focused(page)).toMatchObject({ kind: 'tool_call' });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('keeps a phone’s step headers on one line, with the rest behind ⋯; badges wrap; the title gets two lines; the jump pill covers no control', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url, PHONE);
    try {
      await startFromHome(page, RECIPE_TASK, { askBeforeTools: true });
      // Approved for the whole session: the longest decision badge the demo gives.
      await page.locator('[data-approval="pending"] [data-action="approve-always"]').click({ timeout: 20_000 });
      // The kilograms part is a second tool (unit_converter), which asks in its turn: on a later step.
      await page.locator('article[data-step-id]:has([data-approval="pending"]):has-text("unit_converter") [data-action="approve-always"]').click({ timeout: 20_000 });
      await waitForCompletion(page);

      const layout = await page.$$eval(CARD, (cards) =>
        cards.map((card) => {
          const head = card.querySelector<HTMLElement>('header')!;
          const kind = card.querySelector<HTMLElement>('.kind')!;
          const range = document.createRange();
          range.selectNodeContents(kind);
          const cardBox = card.getBoundingClientRect();
          const badges = Array.from(card.querySelectorAll<HTMLElement>('.badge, [data-approval], .breakpoint'));
          return {
            kind: card.getAttribute('data-kind'),
            label: kind.innerText,
            headHeight: head.getBoundingClientRect().height,
            labelLines: new Set(Array.from(range.getClientRects()).map((rect) => Math.round(rect.top))).size,
            overflows: card.scrollWidth > card.clientWidth,
            badgesOutside: badges.filter((badge) => badge.getBoundingClientRect().right > cardBox.right + 0.5).length,
            badges: badges.length,
          };
        }),
      );
      expect(layout.length).toBeGreaterThanOrEqual(5);
      for (const card of layout) {
        // One line box: the header's own minimum (24 px) and a little for the ⋯ button's outline.
        expect(card.headHeight, `${card.kind} header`).toBeLessThanOrEqual(30);
        expect(card.labelLines, `${card.kind} label`).toBe(1);
        expect(card.overflows, `${card.kind} overflows`).toBe(false);
        expect(card.badgesOutside, `${card.kind} badges`).toBe(0);
      }
      expect(layout.find((card) => card.kind === 'final_answer')?.label).toBe('Final answer');
      expect(layout.some((card) => card.badges > 0)).toBe(true);

      // The title: two lines at most, and the whole width for them.
      const title = await page.locator('.session-header h1').evaluate((h1) => ({ lines: Math.round(h1.clientHeight / parseFloat(getComputedStyle(h1).lineHeight)), width: h1.clientWidth }));
      expect(title.lines).toBe(2);
      expect(title.width).toBeGreaterThan(300);

      // Fork, replay, copy and collapse wait behind ⋯.
      const finalCard = page.locator(`${CARD}[data-kind="final_answer"]`);
      await finalCard.locator('[data-action="more"]').click();
      const menu = finalCard.getByRole('menu');
      expect(await menu.getByRole('menuitem').allInnerTexts()).toEqual(['Fork from here', 'Replay on…', 'Copy', 'Collapse']);
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });
      await screenshot(page, 'trial-phone-chain');

      // A correction of the answer makes a branch picker on it; scrolled up a little, "Jump to latest"
      // shows, and the picker sits just above the dock, where the pill used to float: it covers none of its buttons.
      await finalCard.locator('[data-action="correct"]').click();
      const editor = finalCard.locator('textarea');
      await editor.fill('For 10 people you need 625 g of flour, which is 0.625 kg.');
      await editor.press('Control+Enter');
      const picker = page.locator(`${CARD}[data-kind="final_answer"] .picker`);
      await picker.waitFor({ timeout: 20_000 });
      await page.locator(`${CARD}[data-kind="final_answer"][data-status="corrected"]`).waitFor();
      await scrollBy(page, -400);
      await page.locator('.jump button').waitFor();
      const bandTop = (await box(page, '.dock')).top;
      await scrollBy(page, (await box(page, `${CARD}[data-kind="final_answer"] .picker`)).bottom - bandTop + 8);
      await page.locator('.jump button').waitFor();
      const jump = await box(page, '.jump button');
      const dock = await box(page, '.dock');
      // The pill is inside the dock's own band: over the composer's chrome, never over the chain.
      expect(jump.top).toBeGreaterThanOrEqual(dock.top);
      expect(jump.bottom).toBeLessThanOrEqual(dock.bottom);
      const pickerBox = await box(page, `${CARD}[data-kind="final_answer"] .picker`);
      expect(pickerBox.bottom).toBeLessThanOrEqual(dock.top);
      expect(pickerBox.bottom).toBeGreaterThan(dock.top - 40);
      for (const button of await picker.locator('button').all()) {
        const buttonBox = await button.evaluate((element) => {
          const { top, bottom, left, right } = element.getBoundingClientRect();
          return { top, bottom, left, right };
        });
        expect(intersects(buttonBox, jump)).toBe(false);
        // What a press at its centre reaches is the button itself.
        const hit = await button.evaluate((element) => {
          const rect = element.getBoundingClientRect();
          return document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2) === element;
        });
        expect(hit).toBe(true);
      }
      await screenshot(page, 'trial-phone-jump-pill');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('reaches step 3’s Correct in a handful of keys: one tab stop per step, arrows inside; focus returns to the step after Esc and Save', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await startFromHome(page, PERCENT_TASK);
      await waitForCompletion(page);
      const steps = await liveSteps(page);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

      // From the page's top: the skip link, then into the main column, then Tab to the chain.
      let presses = 0;
      const press = async (key: string) => {
        presses += 1;
        await page.keyboard.press(key);
      };
      await press('Tab');
      expect(await page.evaluate(() => document.activeElement?.classList.contains('skip-link'))).toBe(true);
      await press('Enter');
      let tabs = 0;
      while (!(await focused(page)).stepId && tabs < 20) {
        await press('Tab');
        tabs += 1;
      }
      expect(await focused(page)).toMatchObject({ stepId: steps[0]!.id });
      await press('ArrowDown');
      await press('ArrowDown');
      expect(await focused(page)).toMatchObject({ stepId: steps[2]!.id });
      await press('Enter');
      const correct = await page.evaluate(() => {
        const active = document.activeElement as HTMLElement | null;
        return { action: active?.dataset.action, step: active?.closest<HTMLElement>('[data-step-id]')?.dataset.stepId };
      });
      expect(correct).toEqual({ action: 'correct', step: steps[2]!.id });
      // Skip link, Enter, the header's controls, ↓ ↓ Enter: the trial took 33 Tab presses.
      expect(tabs).toBeLessThanOrEqual(6);
      expect(presses).toBeLessThanOrEqual(11);

      // → and ← go through the card's controls; Esc goes back to the card.
      await page.keyboard.press('ArrowRight');
      expect((await focused(page)).inCard).toBe(true);
      expect((await focused(page)).action).not.toBe('correct');
      await page.keyboard.press('ArrowLeft');
      expect(await focused(page)).toMatchObject({ action: 'correct' });
      await page.keyboard.press('Escape');
      expect(await focused(page)).toMatchObject({ stepId: steps[2]!.id });

      // Tab leaves the chain (the next region: the composer); Shift+Tab comes back to the same step.
      await page.keyboard.press('Tab');
      expect(await focused(page)).toMatchObject({ inCard: false });
      expect(await page.evaluate(() => document.activeElement?.closest('.dock') !== null)).toBe(true);
      await page.keyboard.press('Shift+Tab');
      expect(await focused(page)).toMatchObject({ stepId: steps[2]!.id });

      // Esc in the editor: back to the step it came from.
      await page.keyboard.press('k');
      await page.keyboard.press('k');
      expect(await focused(page)).toMatchObject({ stepId: steps[0]!.id });
      await page.keyboard.press('e');
      const editor = page.locator(`${CARD}[data-step-id="${steps[0]!.id}"] textarea`);
      await editor.waitFor();
      expect(await editor.evaluate((element) => element === document.activeElement)).toBe(true);
      await page.keyboard.press('Escape');
      await editor.waitFor({ state: 'detached' });
      expect(await focused(page)).toMatchObject({ stepId: steps[0]!.id });

      // Save: back to the step, the one that replaced the corrected step.
      await page.keyboard.press('e');
      await editor.fill('First the percentage as a fraction, then the product.');
      await editor.press('Control+Enter');
      await page.waitForFunction((old) => {
        const active = document.activeElement as HTMLElement | null;
        return active?.dataset.kind === 'thought' && active.dataset.stepId !== old && active.matches('.rows [data-row] > article');
      }, steps[0]!.id);
      const after = await liveSteps(page);
      expect(await focused(page)).toMatchObject({ stepId: after[0]!.id });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
