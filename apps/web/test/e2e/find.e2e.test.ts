// @vitest-environment node
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, screenshot } from './support/browser.js';
import { fetchSnapshot, startFromHome, waitForCompletion } from './support/chain-page.js';
import { createFirehoseSession } from './support/firehose.js';
import { PERCENT_TASK } from './support/e2e-env.js';
import { useServerAndBrowser } from './support/shared-env.js';

// A long chain written at once by the firehose agent (bench mode): thought and action in turn, so
// nothing folds. Each delta is stamped "#<n> " with its number over the whole session, so a query
// like "#25" has hits in a few steps far apart, several in some of them.
const STEPS = 400;
const DELTAS_PER_STEP = 10;
const TASK = `firehose rate=max count=${STEPS * DELTAS_PER_STEP} step=${DELTAS_PER_STEP} kinds=thought,action`;

const env = useServerAndBrowser({ INTERTHOUGHT_BENCH: '1' });

/** What the find bar says: the current hit's number and the total. */
function findCount(page: Page) {
  return page.locator('[data-find-count]').evaluate((element) => ({
    number: Number((element as HTMLElement).dataset.number),
    total: Number((element as HTMLElement).dataset.total),
    text: element.textContent?.trim() ?? '',
  }));
}

/** Wait until the current highlight is painted on the card of `stepId`, inside the window, and return what it covers. */
async function currentHighlight(page: Page, stepId: string) {
  await page.waitForFunction(
    (id) => {
      const current = CSS.highlights.get('interthought-find-current');
      const range = current ? ([...current][0] as Range | undefined) : undefined;
      const card = range?.startContainer.parentElement?.closest<HTMLElement>('[data-step-id]');
      if (card?.dataset.stepId !== id) return false;
      const box = range!.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= window.innerHeight && box.height > 0;
    },
    stepId,
    { timeout: 10_000, polling: 'raf' },
  ).catch(async (error: unknown) => {
    const state = await page.evaluate(() => {
      const current = CSS.highlights.get('interthought-find-current');
      const range = current ? ([...current][0] as Range | undefined) : undefined;
      const scroller = document.querySelector('[data-scroller]')!;
      const cards = [...document.querySelectorAll<HTMLElement>('[data-step-id]')];
      const inView = cards.filter((c) => { const b = c.getBoundingClientRect(); return b.bottom > 0 && b.top < innerHeight && b.height > 0; }).map((c) => cards.indexOf(c));
      return { scrollTop: scroller.scrollTop, scrollHeight: scroller.scrollHeight, inView, active: document.activeElement?.tagName, size: current?.size, card: range?.startContainer.parentElement?.closest<HTMLElement>('[data-step-id]')?.dataset.stepId, box: range?.getBoundingClientRect().toJSON(), h: window.innerHeight };
    });
    throw new Error(`${String(error)} ${JSON.stringify({ stepId, state })}`);
  });
  return page.evaluate(() => {
    const current = [...CSS.highlights.get('interthought-find-current')!][0] as Range;
    return { text: current.toString(), hits: CSS.highlights.get('interthought-find-hit')?.size ?? 0 };
  });
}

/** The step that holds the focus. */
function focusedStepId(page: Page) {
  return page.evaluate(() => (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[data-step-id]')?.dataset.stepId ?? null);
}

function inViewport(page: Page, stepId: string) {
  return page.evaluate((id) => {
    const box = document.querySelector(`[data-step-id="${id}"]`)?.getBoundingClientRect();
    return box !== undefined && box.bottom > 0 && box.top < window.innerHeight && box.height > 0;
  }, stepId);
}

/** The chain's steps holding a query, in order, with how many times each: what the count must say. */
function hitsIn(steps: { stepId: string; content: string }[], chain: string[], query: string): { stepId: string; count: number }[] {
  const byId = new Map(steps.map((step) => [step.stepId, step.content]));
  return chain
    .map((stepId) => ({ stepId, count: (byId.get(stepId) ?? '').split(query).length - 1 }))
    .filter((hit) => hit.count > 0);
}

describe('find in the chain, in Chromium', { timeout: 180_000 }, () => {
  it('finds text in every step of a long chain, jumps to each hit and highlights it, and gives the focus back', async () => {
    const { page, errors } = await openPage(env().browser, env().server.url);
    const sessionId = await createFirehoseSession(env().server.url, TASK);
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    await waitForCompletion(page, 90_000);
    const snapshot = await fetchSnapshot(page, sessionId);
    const chain = snapshot.chain;
    expect(chain).toHaveLength(STEPS + 1);

    // The first step has the focus; Ctrl+F opens our find bar (not the browser's) with its field focused.
    await page.locator('main').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('g');
    await page.keyboard.press('g');
    // The move draws the first row of the virtualized chain and focuses it a frame or more later (CI's failure under load).
    await expect.poll(() => focusedStepId(page)).toBe(chain[0]);
    await page.keyboard.press('Control+f');
    const input = page.locator('[data-find-input]');
    await input.waitFor();
    expect(await input.evaluate((element) => element === document.activeElement)).toBe(true);
    // Under the sticky header, never behind it.
    const covered = await page.evaluate(() => {
      const bar = document.querySelector('[data-find-bar]')!.getBoundingClientRect();
      const top = document.elementFromPoint(bar.left + bar.width / 2, bar.top + bar.height / 2);
      return top?.closest('[data-find-bar]') !== null;
    });
    expect(covered).toBe(true);

    const query = '#25';
    const expected = hitsIn(snapshot.steps, chain, query);
    const total = expected.reduce((sum, hit) => sum + hit.count, 0);
    expect(expected.length).toBeGreaterThanOrEqual(3);
    await input.fill(query);
    await expect.poll(() => findCount(page)).toEqual({ number: 1, total, text: `1 / ${total}` });
    expect((await currentHighlight(page, expected[0]!.stepId)).text).toBe(query);

    // Enter moves to the next hit: a step far down, its card brought into view and painted.
    await page.keyboard.press('Enter');
    await expect.poll(() => findCount(page)).toMatchObject({ number: 2 });
    const second = await currentHighlight(page, expected[1]!.stepId);
    expect(second.text).toBe(query);
    expect(second.hits).toBeGreaterThanOrEqual(expected[1]!.count);
    expect(await inViewport(page, expected[1]!.stepId)).toBe(true);
    await screenshot(page, '30-find-hit');

    // Shift+Enter twice: back to the first, then round to the last hit, the farthest down.
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.press('Shift+Enter');
    await expect.poll(() => findCount(page)).toMatchObject({ number: total });
    const last = expected[expected.length - 1]!;
    await currentHighlight(page, last.stepId);
    expect(await inViewport(page, chain[0]!)).toBe(false);

    // A query whose only hit is far up the chain (the first step) is reached from down here.
    await input.fill('#3 ');
    await expect.poll(() => findCount(page)).toEqual({ number: 1, total: 1, text: '1 / 1' });
    await currentHighlight(page, chain[0]!);
    expect(await inViewport(page, last.stepId)).toBe(false);

    // Match case, and no result said as such.
    await input.fill('@t');
    await expect.poll(async () => (await findCount(page)).total).toBeGreaterThan(STEPS);
    await page.getByRole('button', { name: 'Match case' }).click();
    await expect.poll(() => findCount(page)).toEqual({ number: 0, total: 0, text: 'No results' });
    await page.getByRole('button', { name: 'Match case' }).click();

    // Esc closes the bar and returns the focus to the step it came from; the highlights go.
    await input.focus();
    await page.keyboard.press('Escape');
    await page.locator('[data-find-bar]').waitFor({ state: 'detached' });
    expect(await focusedStepId(page)).toBe(chain[0]);
    expect(await page.evaluate(() => CSS.highlights.has('interthought-find-hit'))).toBe(false);

    // `/` (not typing) opens it again with the last query.
    await page.keyboard.press('/');
    await input.waitFor();
    expect(await input.inputValue()).toBe('@t');
    await page.keyboard.press('Escape');

    // The outline (o) lists every step, drawing only a window of them; "go to step N" jumps there.
    await page.keyboard.press('o');
    const outline = page.locator('[data-outline]');
    await outline.waitFor();
    expect(await outline.locator('[data-outline-rows]').getAttribute('data-outline-rows')).toBe(String(STEPS + 1));
    expect(await outline.locator('[data-outline-step]').count()).toBeLessThan(40);
    await outline.locator('[data-outline-goto]').fill('300');
    await outline.locator('[data-outline-goto]').press('Enter');
    await expect.poll(() => focusedStepId(page)).toBe(chain[299]);
    expect(await inViewport(page, chain[299]!)).toBe(true);
    // A click on an entry goes to its step.
    await outline.locator(`[data-outline-step="${chain[0]}"]`).click();
    await expect.poll(() => focusedStepId(page)).toBe(chain[0]);
    expect(await inViewport(page, chain[0]!)).toBe(true);
    await screenshot(page, '31-outline');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows only tool calls and back, and speaks Chinese', async () => {
    const { page, errors } = await openPage(env().browser, env().server.url, { locale: 'zh-CN' });
    const sessionId = await startFromHome(page, PERCENT_TASK);
    await waitForCompletion(page);
    const cards = page.locator('[data-step-id]');
    const before = await cards.evaluateAll((elements) => elements.map((element) => (element as HTMLElement).dataset.kind));
    expect(before).toContain('tool_call');
    expect(before.some((kind) => kind !== 'tool_call')).toBe(true);

    await page.getByRole('button', { name: '步骤链大纲' }).click();
    await page.locator('[data-kind-filter]').selectOption('tool_call');
    await expect.poll(() => cards.evaluateAll((elements) => elements.map((element) => (element as HTMLElement).dataset.kind))).toEqual(before.filter((kind) => kind === 'tool_call'));
    const banner = page.locator('[data-filter-banner]');
    expect(await banner.innerText()).toContain('仅工具调用');
    expect(await banner.innerText()).toContain(`显示 ${before.length} 步中的 ${before.filter((kind) => kind === 'tool_call').length} 步`);
    await screenshot(page, '32-filter-tool-calls');
    await banner.getByRole('button', { name: '显示全部步骤' }).click();
    await expect.poll(() => cards.evaluateAll((elements) => elements.map((element) => (element as HTMLElement).dataset.kind))).toEqual(before);
    await expect.poll(() => page.locator('[data-kind-filter]').inputValue()).toBe('');

    // The find bar in Chinese: its placeholder and count.
    const snapshot = await fetchSnapshot(page, sessionId);
    // The tool's name is in the header of its call and of its observation.
    const shown = snapshot.steps.filter((step) => snapshot.chain.includes(step.stepId));
    const calculator = shown.reduce((sum, step) => sum + `${step.tool ?? ''} ${step.content}`.split('calculator').length - 1, 0);
    expect(calculator).toBeGreaterThan(1);
    await page.keyboard.press('Control+f');
    const input = page.locator('[data-find-input]');
    await input.waitFor();
    expect(await input.getAttribute('placeholder')).toBe('在所有步骤中查找…');
    await input.fill('calculator');
    await expect.poll(async () => (await findCount(page)).text).toBe(`第 1 / ${calculator} 项`);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
