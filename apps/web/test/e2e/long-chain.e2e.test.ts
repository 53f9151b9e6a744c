// @vitest-environment node
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, screenshot } from './support/browser.js';
import { fetchSnapshot, waitForCompletion } from './support/chain-page.js';
import { createFirehoseSession } from './support/firehose.js';
import { useServerAndBrowser } from './support/shared-env.js';

// A chain as long as an agent writes in an hour, in real Chromium against the real server. The
// firehose agent (registered in bench mode) writes it at once: thought and action in turn, so no
// thoughts fold and every step is its own row on the page. The timeline is virtualized: only the
// rows near the viewport are in the DOM, and the keyboard still reaches every step.
const STEPS = 640;
const DELTAS_PER_STEP = 10;
const TASK = `firehose rate=max count=${STEPS * DELTAS_PER_STEP} step=${DELTAS_PER_STEP} kinds=thought,action`;

const env = useServerAndBrowser({ INTERTHOUGHT_BENCH: '1' });

/** The step that holds the focus, by id and kind. */
function focusedStep(page: Page) {
  return page.evaluate(() => {
    const step = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[data-step-id]');
    return step ? { id: step.dataset.stepId, kind: step.dataset.kind } : null;
  });
}

/** Whether the step is drawn inside the scrolling column (at least partly). */
function inViewport(page: Page, stepId: string) {
  return page.evaluate((id) => {
    const box = document.querySelector(`[data-step-id="${id}"]`)?.getBoundingClientRect();
    const column = document.querySelector('[data-scroller]')!.getBoundingClientRect();
    return box !== undefined && box.bottom > column.top && box.top < column.bottom && box.height > 0;
  }, stepId);
}

/** The column scrolled to the end of the chain (what following the stream keeps it at), with the last rows drawn there. */
// A function, not a string: the page's CSP (no 'unsafe-eval') refuses a predicate passed as source text.
function AT_TAIL(): boolean {
  const scroller = document.querySelector('[data-scroller]')!;
  const rows = Array.from(document.querySelectorAll<HTMLElement>('.chain .rows [data-row]'));
  const setSize = Number(rows[0]?.getAttribute('aria-setsize') ?? 0);
  const newest = Math.max(...rows.map((row) => Number(row.dataset.row)));
  // A row added this very frame is drawn a frame or two later: the last few count as the tail.
  return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 150 && newest >= setSize - 4;
}

/** Following: the column reaches the tail while the chain streams (a loaded machine draws a few frames behind). */
const reachesTail = (page: Page) => page.waitForFunction(AT_TAIL, undefined, { timeout: 10_000, polling: 50 });
const atTail = (page: Page) => page.evaluate(AT_TAIL);

const stepsShown = (page: Page) => page.evaluate(() => Number(document.querySelector('.chain .rows')?.getAttribute('data-steps') ?? 0));
const cardsInDom = (page: Page) => page.locator('.chain .rows [data-step-id]').count();
const scrollTop = (page: Page) => page.evaluate(() => document.querySelector('[data-scroller]')!.scrollTop);


describe('a long chain in Chromium', { timeout: 120_000 }, () => {
  it('draws only the rows near the viewport, reaches every step by keyboard and corrects a far step', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await createFirehoseSession(env().server.url, TASK);
      await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await waitForCompletion(page, 60_000);
      const snapshot = await fetchSnapshot(page, sessionId);
      const chain = snapshot.chain;
      expect(chain).toHaveLength(STEPS + 1);
      const last = chain[STEPS]!;
      // The list says how long the chain is; only a window of it is drawn, and auto-scroll followed it to the end.
      expect(await stepsShown(page)).toBe(STEPS + 1);
      expect(await page.locator('.chain [role="list"]').count()).toBe(1);
      expect(await page.locator('.chain [role="listitem"]').first().getAttribute('aria-setsize')).toBe(String(STEPS + 1));
      expect(await cardsInDom(page)).toBeLessThan(100);
      await page.waitForFunction((id) => document.querySelector(`[data-step-id="${id}"]`) !== null, last);
      expect(await inViewport(page, last)).toBe(true);
      expect(await page.locator(`[data-step-id="${chain[0]}"]`).count()).toBe(0);

      // g g: the first step, drawn anew at the top.
      await page.locator('main').click({ position: { x: 5, y: 300 } });
      await page.keyboard.press('g');
      await page.keyboard.press('g');
      await page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.stepId === id, chain[0]);
      expect(await inViewport(page, chain[0]!)).toBe(true);
      expect(await page.locator(`[data-step-id="${last}"]`).count()).toBe(0);
      await screenshot(page, '16-long-chain-top');

      // j walks down past the rows that were drawn at the start, one step at a time.
      const far = 45;
      for (let i = 0; i < far; i++) await page.keyboard.press('j');
      await page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.stepId === id, chain[far]);
      expect(await inViewport(page, chain[far]!)).toBe(true);
      await page.keyboard.press('k');
      await page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.stepId === id, chain[far - 1]);

      // G: the last step; the top is no longer drawn.
      await page.keyboard.press('Shift+G');
      await page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.stepId === id, last);
      expect(await focusedStep(page)).toEqual({ id: last, kind: 'final_answer' });
      expect(await inViewport(page, last)).toBe(true);
      expect(await page.locator(`[data-step-id="${chain[0]}"]`).count()).toBe(0);
      await screenshot(page, '16-long-chain-bottom');

      // Scrolled to the top by hand, the focused step stays mounted: focus is not lost to the page body.
      await page.evaluate(() => document.querySelector('[data-scroller]')!.scrollTo({ top: 0 }));
      await page.waitForFunction((id) => document.querySelector(`[data-step-id="${id}"]`) !== null, chain[0]);
      await page.waitForTimeout(200);
      expect(await inViewport(page, chain[0]!)).toBe(true);
      expect(await inViewport(page, last)).toBe(false);
      expect(await focusedStep(page)).toEqual({ id: last, kind: 'final_answer' });
      expect(await cardsInDom(page)).toBeLessThan(100);

      // Back up the chain by keyboard to a step far above the bottom, and correct it with e.
      await page.keyboard.press('g');
      await page.keyboard.press('g');
      for (let i = 0; i < 3; i++) await page.keyboard.press('j');
      const target = chain[3]!;
      await page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.stepId === id, target);
      expect(await focusedStep(page)).toEqual({ id: target, kind: 'action' });
      await page.keyboard.press('e');
      const editor = page.locator(`[data-step-id="${target}"] textarea`);
      await editor.waitFor();
      await editor.fill('A corrected action, far up a long chain.');
      await editor.press('Control+Enter');
      await page.getByRole('button', { name: new RegExp(`${STEPS + 1 - 3} steps superseded by your correction`) }).waitFor({ timeout: 30_000 });
      // The new final answer is far below, not drawn while the user stays up here: the header says it is done.
      let corrected = await fetchSnapshot(page, sessionId);
      for (const until = Date.now() + 60_000; corrected.session.status !== 'completed' && Date.now() < until; ) {
        await page.waitForTimeout(250);
        corrected = await fetchSnapshot(page, sessionId);
      }
      await page.locator('[data-session-status="completed"]').waitFor({ timeout: 10_000 });
      expect(corrected.chain).toHaveLength(STEPS + 1);
      const fixed = corrected.steps.find((step) => step.stepId === corrected.chain[3]);
      expect(fixed).toMatchObject({ status: 'corrected', content: 'A corrected action, far up a long chain.', correctionOf: target });
      // The superseded steps fold into one row: the chain shows the new steps below the fold.
      await page.evaluate(() => document.querySelector('[data-scroller]')!.scrollTo({ top: 0 }));
      await page.locator(`[data-step-id="${corrected.chain[3]}"][data-status="corrected"]`).waitFor();
      expect(await page.locator(`[data-step-id="${corrected.chain[3]}"][data-status="corrected"]`).textContent()).toContain('A corrected action, far up a long chain.');
      expect(await stepsShown(page)).toBe(STEPS + 1);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('follows a streaming chain, yields when the user scrolls up, and resumes from "Jump to latest"', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      // 300 steps at once, then 30 new steps a second for about 15 s.
      const task = `firehose rate=300 count=4500 step=${DELTAS_PER_STEP} lead=300 kinds=thought,action`;
      const sessionId = await createFirehoseSession(env().server.url, task);
      await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await page.waitForFunction(() => Number(document.querySelector('.chain .rows')?.getAttribute('data-steps') ?? 0) > 330, undefined, { timeout: 30_000 });
      await reachesTail(page);

      // A wheel turn upwards: the page stays where the user went while the chain keeps growing.
      await page.mouse.move(640, 400);
      await page.mouse.wheel(0, -3000);
      await page.getByRole('button', { name: 'Jump to latest' }).waitFor();
      const before = await scrollTop(page);
      const grownFrom = await stepsShown(page);
      await page.waitForFunction((n) => Number(document.querySelector('.chain .rows')?.getAttribute('data-steps') ?? 0) > n + 15, grownFrom, { timeout: 10_000 });
      expect(Math.abs((await scrollTop(page)) - before)).toBeLessThan(4);
      expect(await atTail(page)).toBe(false);

      // Jump to latest: back at the tail, and following it again.
      await page.getByRole('button', { name: 'Jump to latest' }).click();
      await page.waitForFunction(() => document.querySelector('.jump') === null, undefined, { timeout: 5_000 });
      const jumpedAt = await stepsShown(page);
      await page.waitForFunction((n) => Number(document.querySelector('.chain .rows')?.getAttribute('data-steps') ?? 0) > n + 10, jumpedAt, { timeout: 10_000 });
      await reachesTail(page);
      await context.close();
      expect(errors).toEqual([]);
    } finally {
      await context.close().catch(() => undefined);
    }
  });
  it('finds into a folded run of thoughts far away, and a long step\'s "show more" opens without clipping in its row', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      // Two thoughts then an action, each 40 deltas long: every pair of thoughts folds into one row,
      // every action is long enough to sit behind "show more".
      const steps = 150;
      const sessionId = await createFirehoseSession(env().server.url, `firehose rate=max count=${steps * 40} step=40 kinds=thought,thought,action`);
      await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
      await waitForCompletion(page, 60_000);
      const snapshot = await fetchSnapshot(page, sessionId);
      const content = new Map(snapshot.steps.map((step) => [step.stepId, step.content]));
      // A thought far down, folded with its pair: a stamp of its first delta is its only hit.
      const target = snapshot.chain[120]!;
      expect(snapshot.steps.find((step) => step.stepId === target)?.kind).toBe('thought');
      const query = /#\d+ /.exec(content.get(target) ?? '')![0];
      expect(snapshot.chain.filter((id) => (content.get(id) ?? '').includes(query))).toEqual([target]);

      // From the top of the chain, the fold's row is not drawn; find reaches it, opens the fold, highlights the hit.
      await page.locator('main').click({ position: { x: 5, y: 300 } });
      await page.keyboard.press('g');
      await page.keyboard.press('g');
      // The first two thoughts are folded: the first card to focus is the action after them.
      await page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.stepId === id, snapshot.chain[2]);
      expect(await page.locator(`[data-step-id="${target}"]`).count()).toBe(0);
      await page.keyboard.press('Control+f');
      await page.locator('[data-find-input]').fill(query);
      await expect.poll(() => page.locator('[data-find-count]').getAttribute('data-total')).toBe('1');
      await page.waitForFunction(
        (id) => {
          const range = [...(CSS.highlights.get('interthought-find-current') ?? [])][0] as Range | undefined;
          const card = range?.startContainer.parentElement?.closest<HTMLElement>('[data-step-id]');
          const box = range?.getBoundingClientRect();
          return card?.dataset.stepId === id && box !== undefined && box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight;
        },
        target,
        { timeout: 10_000 },
      );
      expect(await page.locator(`[data-row]:has([data-step-id="${target}"]) button[aria-expanded]`).first().getAttribute('aria-expanded')).toBe('true');
      await page.keyboard.press('Escape');
      await screenshot(page, '16-long-chain-find-in-fold');

      // "Show more" on a long action drawn on screen: its row is measured again, the next row moves down clear of it.
      const more = page.locator('[data-row]:has(> [data-kind="action"]) button.more[aria-expanded="false"]').first();
      await more.scrollIntoViewIfNeeded();
      await more.click();
      await page.waitForFunction(() => {
        const opened = document.querySelector<HTMLElement>('[data-row]:has(button.more[aria-expanded="true"])');
        const next = opened && document.querySelector<HTMLElement>(`[data-row="${Number(opened.dataset.row) + 1}"]`);
        const card = opened?.querySelector<HTMLElement>('[data-step-id]');
        if (!opened || !next || !card) return false;
        const text = card.querySelector<HTMLElement>('[data-step-text]')!;
        // Not clamped any more, the whole card inside its row, and the row below starts past it.
        return text.scrollHeight <= text.clientHeight + 1 && card.getBoundingClientRect().bottom <= next.getBoundingClientRect().top + 1;
      }, undefined, { timeout: 15_000 });
      const opened = await page.evaluate(() => {
        const text = document.querySelector<HTMLElement>('[data-row]:has(button.more[aria-expanded="true"]) [data-step-text]')!;
        return { height: text.getBoundingClientRect().height, clamped: getComputedStyle(text).maxHeight !== 'none' };
      });
      expect(opened.clamped).toBe(false);
      expect(opened.height).toBeGreaterThan(200);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
