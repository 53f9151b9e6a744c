// @vitest-environment node
import { InterthoughtClient, PreferenceLineSchema, SessionSnapshotBodySchema, SftLineSchema, type SessionSnapshotBody, type Step } from '@interthought/protocol';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { openPage, screenshot } from './support/browser.js';
import { PERCENT_TASK } from './support/e2e-env.js';
import { useServerAndBrowser } from './support/shared-env.js';

// The Corrections page (issue #31) in real Chromium against the real server: corrections made over a
// real WebSocket on the demo agent (a thought edited, a tool call edited after it ran and before it
// ran, a call refused), listed, filtered through the address, opened at their step, and both
// downloads read line by line with the contract's schemas.
const env = useServerAndBrowser();

let client: InterthoughtClient;
/** The corrections made, by what was corrected: the session and the step a row should open. */
const made: Record<'thought' | 'call' | 'approval' | 'refusal', { sessionId: string; stepId: string; opens: string }> = {} as never;

async function snapshot(sessionId: string): Promise<SessionSnapshotBody> {
  const response = await fetch(`${env().server.url}/api/sessions/${encodeURIComponent(sessionId)}`);
  expect(response.ok).toBe(true);
  return SessionSnapshotBodySchema.parse(await response.json());
}

/** Poll the session's snapshot until `ready` holds, and return it. */
async function waitFor(sessionId: string, ready: (snap: SessionSnapshotBody) => boolean, timeout = 30_000): Promise<SessionSnapshotBody> {
  const end = Date.now() + timeout;
  for (;;) {
    const snap = await snapshot(sessionId);
    if (ready(snap)) return snap;
    if (Date.now() > end) throw new Error(`Session ${sessionId} did not get there: status ${snap.session.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const chainOf = (snap: SessionSnapshotBody): Step[] => snap.chain.map((id) => snap.steps.find((step) => step.stepId === id)!);
const completed = (snap: SessionSnapshotBody) => snap.session.status === 'completed';
const pendingCall = (snap: SessionSnapshotBody) => chainOf(snap).find((step) => step.kind === 'tool_call' && step.approval?.state === 'pending');

async function correct(sessionId: string, stepId: string, content: string, note: string): Promise<string> {
  const accepted = await client.request({ type: 'step.correct', sessionId, stepId, content, note });
  return accepted.newStepId;
}

beforeAll(async () => {
  client = new InterthoughtClient({ url: `${env().server.url.replace(/^http/, 'ws')}/ws`, WebSocket });
  await client.connect();
  const start = async (options?: { approve: 'all' }) => (await client.createSession(PERCENT_TASK, options ? { options } : {})).session.sessionId;

  // A thought, edited once the run completed: the agent goes on from the new thought.
  const a = await start();
  const thought = chainOf(await waitFor(a, completed)).find((step) => step.kind === 'thought')!;
  made.thought = { sessionId: a, stepId: thought.stepId, opens: await correct(a, thought.stepId, 'I need 15% of 240, that is 240 × 0.15.', 'say how to compute it') };
  await waitFor(a, completed);

  // A tool call, edited after it ran.
  const b = await start();
  const call = chainOf(await waitFor(b, completed)).find((step) => step.kind === 'tool_call')!;
  made.call = { sessionId: b, stepId: call.stepId, opens: await correct(b, call.stepId, JSON.stringify({ expression: '240 * 0.15' }), 'a plain product') };
  await waitFor(b, completed);

  // A call waiting for approval, edited before it ran.
  const c = await start({ approve: 'all' });
  const waiting = pendingCall(await waitFor(c, (snap) => pendingCall(snap) !== undefined))!;
  made.approval = { sessionId: c, stepId: waiting.stepId, opens: await correct(c, waiting.stepId, JSON.stringify({ expression: '0.15 * 240' }), 'multiply the other way') };

  // A call refused, with a reason.
  const d = await start({ approve: 'all' });
  const refused = pendingCall(await waitFor(d, (snap) => pendingCall(snap) !== undefined))!;
  await client.rejectToolCall(d, refused.stepId, 'work it out without the calculator');
  made.refusal = { sessionId: d, stepId: refused.stepId, opens: refused.stepId };
}, 120_000);

afterAll(() => client?.close());

const ROW = '[data-corrections-page] [data-correction]';

async function rows(page: Page): Promise<{ kind: string; act: string; session: string; step: string }[]> {
  return page.$$eval(ROW, (elements) =>
    elements.map((element) => {
      const row = element as HTMLElement;
      return { kind: row.dataset.kind ?? '', act: row.dataset.correction ?? '', session: row.dataset.sessionId ?? '', step: row.dataset.stepId ?? '' };
    }),
  );
}

describe('the Corrections page in Chromium', { timeout: 120_000 }, () => {
  it('lists the corrections made over the WebSocket, newest first, in words', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await page.goto('/');
      // Reached from the rail: the server keeps corrections as data.
      await page.locator('nav [data-nav="corrections"]').click();
      await page.waitForURL(/\/corrections$/);
      await expect.poll(async () => (await rows(page)).length, { timeout: 15_000 }).toBe(4);
      expect(await rows(page)).toEqual([
        { kind: 'tool_call', act: 'rejected', session: made.refusal.sessionId, step: made.refusal.stepId },
        { kind: 'tool_call', act: 'approval_edited', session: made.approval.sessionId, step: made.approval.stepId },
        { kind: 'tool_call', act: 'edited', session: made.call.sessionId, step: made.call.stepId },
        { kind: 'thought', act: 'edited', session: made.thought.sessionId, step: made.thought.stepId },
      ]);
      expect(await page.locator(`${ROW} [data-act]`).allInnerTexts()).toEqual(['refused', 'edited before it ran', 'edited', 'edited']);
      // Without users every connection is the one user: "you", never a connection id.
      for (const who of await page.locator(`${ROW} [data-who]`).allInnerTexts()) expect(who).toMatch(/^by you · /);
      const refusal = page.locator(ROW).first();
      expect(await refusal.locator('[data-reason]').innerText()).toBe('Reason: work it out without the calculator');
      const thought = page.locator(`${ROW}[data-kind="thought"]`);
      expect(await thought.locator('[data-note]').innerText()).toContain('say how to compute it');
      expect(await thought.locator('ins').count()).toBeGreaterThan(0);
      expect(await page.locator('[data-corrections-page] h1').innerText()).toBe('Corrections');
      await screenshot(page, 'corrections-list');

      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('fits a phone: rows, diffs, filters and downloads wrap instead of running off the side', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    try {
      await page.goto('/corrections');
      await expect.poll(async () => (await rows(page)).length, { timeout: 15_000 }).toBe(4);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await page.locator('main').evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
      for (const box of await page.locator(ROW).evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().right))) expect(box).toBeLessThanOrEqual(390);
      await page.locator(`${ROW}[data-kind="thought"]`).scrollIntoViewIfNeeded();
      await screenshot(page, 'corrections-phone');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('filters by kind through the address, keeps the filter over a reload, and opens a row at its step', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await page.goto('/corrections');
      await expect.poll(async () => (await rows(page)).length, { timeout: 15_000 }).toBe(4);
      await page.locator('select[name="kind"]').selectOption('thought');
      await page.waitForURL(/\/corrections\?kind=thought$/);
      await expect.poll(async () => (await rows(page)).map((row) => row.kind)).toEqual(['thought']);
      // The downloads follow the filters.
      expect(await page.locator('[data-download="sft"]').getAttribute('href')).toBe('/api/corrections/export?format=sft&kind=thought');

      await page.reload();
      await expect.poll(async () => (await rows(page)).map((row) => row.kind), { timeout: 15_000 }).toEqual(['thought']);
      expect(await page.locator('select[name="kind"]').inputValue()).toBe('thought');

      // Keyboard: the row's link is reachable and Enter opens the session at the corrected thought.
      await page.locator(`${ROW} a[data-action="open-step"]`).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`/sessions/${made.thought.sessionId}\\?step=${made.thought.opens}$`));
      await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.stepId), { timeout: 15_000 }).toBe(made.thought.opens);
      const card = page.locator(`.rows [data-row] [data-step-id="${made.thought.opens}"]`);
      expect(await card.getAttribute('data-status')).toBe('corrected');
      const box = await card.boundingBox();
      const viewport = page.viewportSize()!;
      expect(box && box.y >= 0 && box.y < viewport.height).toBe(true);
      await screenshot(page, 'corrections-opened-step');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('downloads both files: preference pairs and fine-tuning examples, every line valid', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await page.goto('/corrections');
      await expect.poll(async () => (await rows(page)).length, { timeout: 15_000 }).toBe(4);
      const downloads = page.locator('[data-downloads]');
      expect(await downloads.innerText()).toMatch(/DPO/);
      expect(await downloads.innerText()).toMatch(/fine-tuning/);

      for (const [format, schema] of [
        ['preference', PreferenceLineSchema],
        ['sft', SftLineSchema],
      ] as const) {
        const link = page.locator(`[data-download="${format}"]`);
        const href = (await link.getAttribute('href'))!;
        expect(href).toBe(`/api/corrections/export?format=${format}`);
        const response = await page.request.get(href);
        expect(response.ok()).toBe(true);
        expect(response.headers()['content-type']).toMatch(/^application\/x-ndjson/);
        const lines = (await response.text()).split('\n').filter((line) => line !== '');
        // Every correction has something to prefer: the refusal gave a reason.
        expect(lines).toHaveLength(4);
        const parsed = lines.map((line) => schema.parse(JSON.parse(line)));
        expect(parsed.map((line) => line.metadata.correction)).toEqual(['rejected', 'approval_edited', 'edited', 'edited']);
        expect(parsed.map((line) => line.metadata.stepId)).toEqual([made.refusal.stepId, made.approval.stepId, made.call.stepId, made.thought.stepId]);

        // A click fetches it with the tab's token and saves it under the server's name.
        const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
        expect(download.suggestedFilename()).toBe(`interthought-corrections-${format}.ndjson`);
      }
      const preference = PreferenceLineSchema.parse(JSON.parse((await (await page.request.get('/api/corrections/export?format=preference&kind=thought')).text()).trim()));
      expect(preference.chosen[0]?.content).toBe('I need 15% of 240, that is 240 × 0.15.');
      expect(preference.prompt[0]).toEqual({ role: 'user', content: PERCENT_TASK });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('speaks Chinese too', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url, { locale: 'zh-CN' });
    try {
      await page.goto('/corrections');
      await expect.poll(async () => (await rows(page)).length, { timeout: 15_000 }).toBe(4);
      expect(await page.locator('nav [data-nav="corrections"]').innerText()).toBe('修正记录');
      expect(await page.locator('[data-corrections-page] h1').innerText()).toBe('修正记录');
      expect(await page.locator(`${ROW} [data-act]`).allInnerTexts()).toEqual(['已拒绝', '执行前已修改', '已修改', '已修改']);
      expect(await page.locator('[data-download="preference"]').innerText()).toContain('偏好对');
      expect(await page.locator('[data-download="sft"]').innerText()).toContain('微调样本');
      expect(await page.locator('select[name="kind"] option').allInnerTexts()).toContain('思考');
      await screenshot(page, 'corrections-zh');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
