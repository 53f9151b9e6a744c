// @vitest-environment node
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LESSONS_LIMITS } from '@interthought/protocol';
import { FakeOpenAIServer } from '../../../server/test/agents/openai/support/fake-openai-server.js';
import { answerTurn, content } from '../../../server/test/agents/openai/support/wire.js';
import { launchBrowser, openPage, screenshot } from './support/browser.js';
import { waitForCompletion } from './support/chain-page.js';
import { startServer, type RunningServer } from './support/server.js';
import { SocketLine } from './support/socket-line.js';

// Lessons (PROTOCOL.md §26.4) in real Chromium: a correction made over the WebSocket becomes the
// lesson the next similar session of a `"lessons": true` agent begins with; the page shows it as a
// notice with a link to the corrected step, the guidance on demand, and "Drop lessons".

let fake: FakeOpenAIServer | undefined;
let server: RunningServer | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  fake = await FakeOpenAIServer.start();
  // 10% off unless a lesson says otherwise: the mistake a person corrects.
  fake.answerBy((body: { messages: Array<{ content: string }> }) => {
    const price = Number(/(\d+) dollars/u.exec(body.messages[1]!.content)?.[1]);
    return answerTurn(...content(String(price * (body.messages[0]!.content.includes('A person corrected it to') ? 0.75 : 0.9))));
  });
  const file = join(mkdtempSync(join(tmpdir(), 'interthought-lessons-e2e-')), 'agents.json');
  writeFileSync(file, JSON.stringify({ agents: { tutor: { type: 'openai', description: 'Learns from corrections', baseURL: fake.baseURL, model: 'tutor-model', tools: [], lessons: true, retry: { baseDelayMs: 5 } } } }));
  server = await startServer({ INTERTHOUGHT_AGENTS_CONFIG: file, OPENAI_BASE_URL: '', OPENAI_API_KEY: '' });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fake?.close();
});

describe('lessons in Chromium', { timeout: 90_000 }, () => {
  it('shows the lessons step as a notice with a link to the corrected step, the guidance expandable, and drops it', async () => {
    if (!server || !browser || !fake) throw new Error('The e2e environment did not start (see the beforeAll error).');
    const ws = await SocketLine.open(server.url);
    const { sessionId: first, firstStepId: stepId } = await ws.finishedSession('What is 25% off a price of 240 dollars?', 'tutor');
    const accepted = (await ws.ask({ type: 'step.correct', sessionId: first, stepId, content: '180', note: '25% off is a quarter less' })) as { type: string; newStepId: string };
    expect(accepted.type).toBe('correction.accepted');

    const { page, errors, context } = await openPage(browser, server.url);
    await page.goto('/');
    await page.locator('label.agent', { hasText: 'tutor' }).click();
    await page.getByRole('textbox', { name: /What should the agent work on/ }).fill('What is 25% off a price of 360 dollars?');
    await page.getByRole('button', { name: /^Start/ }).click();
    await page.waitForURL(/\/sessions\/[^/]+$/);
    await waitForCompletion(page);

    const notice = page.locator('[data-lessons]');
    await expect.poll(() => notice.getAttribute('data-lessons')).toBe('using');
    expect(await notice.locator('.title').innerText()).toBe('Using 1 lesson from earlier corrections');
    const link = notice.locator('a[data-lesson-link]');
    expect(await link.getAttribute('href')).toBe(`/sessions/${first}?step=${accepted.newStepId}`);
    expect(await link.getAttribute('aria-label')).toBe('Open lesson 1: the corrected step in its session');
    // The guidance waits behind its summary, and says what the person corrected.
    const guidance = notice.locator('[data-lessons-guidance]');
    expect(await guidance.isVisible()).toBe(false);
    await notice.getByText('What the agent is given').click();
    expect(await guidance.innerText()).toContain('A person corrected it to: 180 — because 25% off is a quarter less');
    expect(await page.locator('[data-kind="final_answer"] [data-step-text]').innerText()).toBe('270');
    await screenshot(page, 'lessons-notice');

    // Dropping corrects the step to the dropped text: the agent runs again without the lesson, and makes its mistake.
    await notice.getByRole('button', { name: 'Drop the lessons of step 1: the agent runs again without them' }).click();
    await expect.poll(() => page.locator('[data-lessons]').getAttribute('data-lessons')).toBe('dropped');
    await expect.poll(() => page.locator('[data-kind="final_answer"][data-status="completed"] [data-step-text]').innerText()).toBe('324');
    expect(fake.requests.at(-1)!.body.messages[0].content).not.toContain(LESSONS_LIMITS.dropped);
    await screenshot(page, 'lessons-dropped');

    // The link opens the session of the correction.
    await page.locator('[data-lessons] a[data-lesson-link]').click();
    await page.waitForURL((url) => url.pathname === `/sessions/${first}`);
    await page.locator(`[data-step-id="${accepted.newStepId}"]`).waitFor();
    expect(errors).toEqual([]);
    await context.close();
    ws.close();
  });

  it('says it in Chinese', async () => {
    if (!server || !browser) throw new Error('The e2e environment did not start (see the beforeAll error).');
    const ws = await SocketLine.open(server.url);
    const { sessionId } = await ws.finishedSession('What is 25% off a price of 480 dollars?', 'tutor');
    const { page, errors, context } = await openPage(browser, server.url, { locale: 'zh-CN' });
    await page.goto(`/sessions/${sessionId}`);
    await expect.poll(() => page.locator('[data-lessons] .title').innerText()).toBe('借鉴了此前纠正中的 1 条经验');
    expect(await page.getByRole('button', { name: '舍弃第 1 步的经验：智能体将不带它们重新运行' }).count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
    ws.close();
  });
});
