// @vitest-environment node
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { content, reasoning } from '../../../server/test/agents/openai/support/wire.js';
import { openPage, screenshot } from './support/browser.js';
import { openCorrection, startFromHome, waitForCompletion } from './support/chain-page.js';
import { TRAIN_TASK } from './support/e2e-env.js';
import { useFakeOpenAIServerAndBrowser } from './support/shared-env.js';

// Math in step text and correction diffs, in real Chromium against the real server (its CSP
// included): the openai agent streams a formula from a fake endpoint, the demo agent's steps are corrected.
const env = useFakeOpenAIServerAndBrowser((fake) => ({ OPENAI_BASE_URL: fake.baseURL, INTERTHOUGHT_MODEL: 'test-model' }));

/** Record every CSP violation the page reports (a blocked font or style would be one). */
async function watchCsp(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`));
  });
}
/** Every violation the page's CSP reported: none at all (zod runs jitless, so it never probes `new Function`). */
const cspViolations = async (page: Page) => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);

async function startWithOpenAI(page: Page, task: string): Promise<void> {
  await page.goto('/');
  await page.locator('label.agent', { hasText: 'openai' }).click();
  await expect.poll(() => page.getByRole('radio', { name: /openai/ }).isChecked()).toBe(true);
  await page.getByRole('textbox', { name: /What should the agent work on/ }).fill(task);
  await page.getByRole('button', { name: /^Start/ }).click();
  await page.waitForURL(/\/sessions\/[^/]+$/);
}

describe('math and diffs in Chromium', { timeout: 60_000 }, () => {
  it('shows a formula as text while it is unfinished, then typeset with MathML; dollar amounts stay prose; copy gives the TeX; no CSP violation', async () => {
    const { server, browser, fake } = env();
    // Reasoning streams live as a thought (answer text is held until the turn ends).
    fake.reply({
      type: 'stream',
      deltas: [
        ...reasoning('The area is $\\pi r', '^2$ for a circle; it costs $40 and $5 to print.\n\n$$\n\\int_0^1 x\\,dx = \\tfrac{1}{2}\n$$\n\nDone.'),
        ...content('The area is πr².'),
      ],
      finishReason: 'stop',
      deltaDelayMs: 1_500,
    });
    const { page, context, errors } = await openPage(browser, server.url);
    try {
      await watchCsp(context);
      await startWithOpenAI(page, 'What is the area of a circle?');
      const answer = page.locator('.rows [data-row] > [data-kind="thought"]');

      // Half-written: the formula's opening `$` has arrived, its closing one not yet.
      await page.waitForFunction(
        () => {
          const thought = document.querySelector<HTMLElement>('.rows [data-row] > [data-kind="thought"][data-status="streaming"] [data-step-text]');
          return thought?.innerText.includes('The area is $\\pi r') === true;
        },
        undefined,
        { timeout: 15_000, polling: 'raf' },
      );
      expect(await answer.locator('.katex, [data-math-error]').count()).toBe(0);
      expect(await answer.locator('[data-step-text]').innerText()).toContain('$\\pi r');

      await waitForCompletion(page);
      await answer.locator('.katex').first().waitFor();
      expect(await answer.locator('.katex').count()).toBe(2);
      expect(await answer.locator('.katex math').count()).toBe(2);
      expect(await answer.locator('.katex-display annotation').textContent()).toBe('\\int_0^1 x\\,dx = \\tfrac{1}{2}');
      const text = await answer.locator('[data-step-text]').innerText();
      expect(text).toContain('it costs $40 and $5 to print.');
      expect(text).not.toContain('$\\pi r^2$');
      // KaTeX's own fonts loaded from 'self' (a blocked font would fall back silently).
      await expect.poll(() => page.evaluate(() => [...document.fonts].some((font) => font.family.includes('KaTeX_Main') && font.status === 'loaded'))).toBe(true);
      await screenshot(page, 'math-thought');

      // Copying a sentence with a formula in it puts the formula's TeX on the clipboard.
      await page.evaluate(() => {
        window.addEventListener('copy', (event) => {
          (window as unknown as { __copied?: string }).__copied = event.clipboardData?.getData('text/plain');
        });
        const paragraph = document.querySelector('.rows [data-kind="thought"] .katex')!.closest('p')!;
        const range = document.createRange();
        range.selectNodeContents(paragraph);
        const selection = window.getSelection()!;
        selection.removeAllRanges();
        selection.addRange(range);
      });
      await page.keyboard.press('Control+c');
      await expect.poll(() => page.evaluate(() => (window as unknown as { __copied?: string }).__copied)).toBe('The area is $\\pi r^2$ for a circle; it costs $40 and $5 to print.');

      expect(await cspViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('renders a corrected step with math: a closed but invalid formula shows quietly as its source, not in red', async () => {
    const { server, browser } = env();
    const { page, context, errors } = await openPage(browser, server.url);
    try {
      await watchCsp(context);
      await startFromHome(page, TRAIN_TASK);
      await waitForCompletion(page);
      const editor = await openCorrection(page, '.rows [data-row] > [data-kind="thought"]');
      await editor.fill('Speed is \\(v = \\frac{d}{t}\\), so $\\frac{180$ is a typo; a ticket is US$5 in `$HOME$`.');
      await editor.press('Control+Enter');
      const thought = page.locator('.rows [data-row] > [data-kind="thought"][data-status="corrected"]');
      await thought.waitFor({ timeout: 15_000 });
      await waitForCompletion(page);

      await thought.locator('.katex').waitFor();
      expect(await thought.locator('.katex').count()).toBe(1);
      const broken = thought.locator('[data-math-error]');
      expect(await broken.textContent()).toBe('$\\frac{180$');
      expect(await broken.getAttribute('title')).toMatch(/KaTeX parse error/);
      const colour = await broken.evaluate((el) => getComputedStyle(el).color);
      expect(colour).not.toMatch(/^rgb\(2\d\d, \d{1,2}, \d{1,2}\)$/);
      expect(await thought.locator('code', { hasText: '$HOME$' }).count()).toBe(1);
      expect(await thought.locator('[data-step-text]').innerText()).toContain('a ticket is US$5 in');
      expect(await cspViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a one-character correction at a glance: tinted, struck and underlined, by characters or by words', async () => {
    const { server, browser } = env();
    const { page, context, errors } = await openPage(browser, server.url);
    try {
      await startFromHome(page, TRAIN_TASK);
      await waitForCompletion(page);
      const thought = page.locator('.rows [data-row] > [data-kind="thought"]');
      const original = await thought.locator('[data-step-text]').innerText();
      const editor = await openCorrection(page, '.rows [data-row] > [data-kind="thought"]');
      await editor.fill(`${original.trim()} We recieve it.`);
      await editor.press('Control+Enter');
      await page.locator('.rows [data-row] > [data-kind="thought"][data-status="corrected"]').waitFor({ timeout: 15_000 });
      await waitForCompletion(page);
      const editor2 = await openCorrection(page, '.rows [data-row] > [data-kind="thought"]');
      await editor2.fill(`${original.trim()} We receive it.`);
      await editor2.press('Control+Enter');
      await expect.poll(() => page.locator('.rows [data-row] > [data-kind="thought"] [data-step-text]').innerText()).toContain('We receive it.');
      await waitForCompletion(page);

      const corrected = page.locator('.rows [data-row] > [data-kind="thought"]');
      await corrected.getByRole('button', { name: 'Show changes' }).click();
      const diff = corrected.locator('[data-diff-granularity]');
      expect(await diff.getAttribute('data-diff-granularity')).toBe('char');
      expect(await corrected.getByRole('button', { name: 'Characters' }).getAttribute('aria-pressed')).toBe('true');
      const marks = await corrected.locator('del, ins').evaluateAll((els) =>
        els.map((el) => {
          const style = getComputedStyle(el);
          return { tag: el.tagName, text: el.textContent, background: style.backgroundColor, line: style.textDecorationLine };
        }),
      );
      expect(marks.map(({ tag, text, line }) => ({ tag, text, line }))).toEqual([
        { tag: 'DEL', text: 'ie', line: 'line-through' },
        { tag: 'INS', text: 'ei', line: 'underline' },
      ]);
      for (const { background } of marks) expect(background).not.toMatch(/^(transparent|rgba\(0, 0, 0, 0\))$/);
      await screenshot(page, 'diff-characters');

      await corrected.getByRole('button', { name: 'Words' }).click();
      expect(await diff.getAttribute('data-diff-granularity')).toBe('word');
      expect(await corrected.locator('del, ins').allTextContents()).toEqual(['recieve', 'receive']);

      // The dark theme has its own tints, still not transparent.
      const backgrounds = () => corrected.locator('del, ins').evaluateAll((els) => els.map((el) => getComputedStyle(el).backgroundColor));
      const light = await backgrounds();
      await page.emulateMedia({ colorScheme: 'dark' });
      const dark = await backgrounds();
      expect(dark).not.toEqual(light);
      for (const background of dark) expect(background).not.toMatch(/^(transparent|rgba\(0, 0, 0, 0\))$/);
      await screenshot(page, 'diff-words-dark');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
