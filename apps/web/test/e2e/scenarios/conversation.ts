import { readFile } from 'node:fs/promises';
import { InterthoughtClient } from '@interthought/protocol';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import WebSocket from 'ws';
import { openPage, screenshot } from '../support/browser.js';
import { fetchSnapshot, liveSteps, openCorrection, startFromHome, waitForCompletion } from '../support/chain-page.js';
import { APPLES_TASK, PERCENT_TASK, type GetEnv } from '../support/e2e-env.js';

const COMPOSER = '[data-composer] textarea';
const SEND = '[data-composer] button[type="submit"]';
const USER_TURN = '.rows [data-row] > [data-kind="user_message"]';

/** A session created over the WebSocket with options the home page does not offer (a slower agent). */
async function createSlowSession(url: string, task: string, tokenDelayMs: number): Promise<string> {
  const client = new InterthoughtClient({ url: `${url.replace(/^http/, 'ws')}/ws`, WebSocket });
  try {
    await client.connect();
    const created = await client.createSession(task, { options: { tokenDelayMs } });
    return created.session.sessionId;
  } finally {
    client.close();
  }
}

/** Type a message in the composer and press Enter. */
async function sendMessage(page: Page, text: string): Promise<void> {
  const box = page.locator(COMPOSER);
  await box.fill(text);
  await box.press('Enter');
}

/** Wait until the live chain ends in a completed final answer after `turns` user turns, and the session is completed. */
async function waitForTurn(page: Page, turns: number, timeout = 30_000): Promise<void> {
  await page.waitForFunction(
    (expected) => {
      const steps = Array.from(document.querySelectorAll<HTMLElement>('.rows [data-row] > article[data-step-id]'));
      const last = steps[steps.length - 1];
      const userTurns = steps.filter((step) => step.dataset.kind === 'user_message').length;
      const done = document.querySelector('[data-session-status="completed"]') !== null;
      return userTurns === expected && last?.dataset.kind === 'final_answer' && last.dataset.status !== 'streaming' && done;
    },
    turns,
    { timeout, polling: 200 },
  );
}

const kinds = (steps: Array<{ kind: string }>) => steps.map((step) => step.kind);

/**
 * Conversations (PROTOCOL.md §20) in Chromium against the real server and the demo agent:
 * follow-ups, steering and queueing while the agent runs, editing a message, forks, export and import.
 */
export function conversationScenarios(env: GetEnv): void {
  it('asks a follow-up after the answer, from the keyboard; editing it keeps the earlier branch browsable', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(page, PERCENT_TASK);
      await waitForCompletion(page);
      const firstTurn = await liveSteps(page);

      // m focuses the composer from anywhere on the page; Esc leaves it for j/k again.
      await page.locator('main').focus();
      await page.keyboard.press('m');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('message');
      expect(await page.locator('[data-composer] [role="radiogroup"]').count()).toBe(0);

      // An Enter that confirms a word in an input method (pinyin) sends nothing.
      await page.locator(COMPOSER).fill('Add 10 to that.');
      await page.locator(COMPOSER).dispatchEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true, cancelable: true });
      expect(await page.locator(COMPOSER).inputValue()).toBe('Add 10 to that.');
      // Shift+Enter is a new line, not a send.
      await page.locator(COMPOSER).press('Shift+Enter');
      expect(await page.locator(COMPOSER).inputValue()).toBe('Add 10 to that.\n');

      await page.locator(COMPOSER).press('Enter');
      expect(await page.locator(COMPOSER).inputValue()).toBe('');
      await waitForTurn(page, 1);
      const steps = await liveSteps(page);
      // The first turn stays as it was; the user's turn follows its answer, and a new answer follows it.
      expect(steps.slice(0, firstTurn.length).map((step) => step.id)).toEqual(firstTurn.map((step) => step.id));
      expect(steps[firstTurn.length]).toMatchObject({ kind: 'user_message', text: 'Add 10 to that.' });
      expect(steps[steps.length - 1]?.kind).toBe('final_answer');
      // The demo agent understands a follow-up on its previous answer (36): 36 + 10.
      expect(steps[steps.length - 1]?.text).toContain('46');
      expect(await page.locator(`${USER_TURN} .kind`).innerText()).toBe('You');
      expect(await page.locator('[data-outgoing]').count()).toBe(0);
      const followUpAnswer = steps[steps.length - 1]!.text;
      await screenshot(page, '30-conversation-follow-up');

      // Edit the message: the turn after it is regenerated, the earlier one stays on a branch.
      const userTurn = page.locator(USER_TURN);
      await userTurn.hover();
      expect(await userTurn.locator('[data-action="correct"]').innerText()).toBe('Edit');
      const editor = await openCorrection(page, USER_TURN);
      await editor.fill('Add 20 to that.');
      await page.getByRole('button', { name: 'Save and resend', exact: true }).click();
      await page.locator(`${USER_TURN}[data-status="corrected"]`).waitFor({ timeout: 15_000 });
      await waitForTurn(page, 1);
      const edited = await liveSteps(page);
      expect(edited[firstTurn.length]).toMatchObject({ kind: 'user_message', text: 'Add 20 to that.' });
      expect(edited[edited.length - 1]?.kind).toBe('final_answer');

      // The branch picker on the message goes back to the first version and what followed it.
      expect(await page.locator(`${USER_TURN} .picker .count`).innerText()).toBe('2 / 2');
      await page.locator(`${USER_TURN} .picker`).getByRole('button', { name: 'Previous branch' }).click();
      await page.locator('.branch-banner').waitFor();
      const earlier = await liveSteps(page);
      expect(earlier[firstTurn.length]).toMatchObject({ kind: 'user_message', text: 'Add 10 to that.' });
      expect(earlier[earlier.length - 1]?.text).toBe(followUpAnswer);
      await page.getByRole('button', { name: 'Back to the live chain' }).click();
      expect((await liveSteps(page))[firstTurn.length]?.text).toBe('Add 20 to that.');

      const snapshot = await fetchSnapshot(page, sessionId);
      expect(snapshot.steps.filter((step) => step.kind === 'user_message').map((step) => step.content)).toEqual(['Add 10 to that.', 'Add 20 to that.']);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('steers the running agent at its next step and queues a message until the turn ends', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await createSlowSession(env().server.url, PERCENT_TASK, 120);
      await page.goto(`/sessions/${sessionId}`);
      await page.locator('[data-session-status="running"]').waitFor();
      const modes = page.locator('[data-composer] [role="radiogroup"]');
      await modes.waitFor();
      expect(await page.getByRole('radio', { name: 'Steer now' }).isChecked()).toBe(true);

      // After this turn: it waits under the chain, saying so, until the agent's answer is there.
      await page.locator('[data-composer] label', { hasText: 'After this turn' }).click();
      await sendMessage(page, 'Add 10 to that.');
      const queued = page.locator('[data-queued-step-id][data-mode="queue"]');
      await queued.waitFor({ timeout: 10_000 });
      expect(await queued.innerText()).toContain('Waiting · sent after this turn');

      // Steer now: it reaches the chain at the agent's next step boundary, before the answer.
      await page.locator('[data-composer] label', { hasText: 'Steer now' }).click();
      await sendMessage(page, 'Please show your working.');
      await page.locator(USER_TURN, { hasText: 'Please show your working.' }).waitFor({ timeout: 15_000 });
      await screenshot(page, '31-conversation-queued');

      await waitForTurn(page, 2, 45_000);
      expect(await page.locator('[data-queued-step-id]').count()).toBe(0);
      const steps = await liveSteps(page);
      const order = kinds(steps);
      const steered = steps.findIndex((step) => step.text === 'Please show your working.');
      const queuedAt = steps.findIndex((step) => step.text === 'Add 10 to that.');
      const firstAnswer = order.indexOf('final_answer');
      expect(steered).toBeGreaterThan(0);
      expect(steered).toBeLessThan(firstAnswer);
      // The queued message waited for the end of the turn: right after its answer.
      expect(queuedAt).toBe(firstAnswer + 1);
      expect(order[order.length - 1]).toBe('final_answer');

      const snapshot = await fetchSnapshot(page, sessionId);
      expect(snapshot.chain).toEqual(steps.map((step) => step.id));
      expect(snapshot.queued ?? []).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('forks from a step: the new session has exactly the copied prefix, waits for a message, and both go their own way', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sourceId = await startFromHome(page, PERCENT_TASK);
      await waitForCompletion(page);
      const source = await liveSteps(page);

      const second = page.locator(`.rows [data-row] > [data-step-id="${source[1]!.id}"]`);
      await second.hover();
      await second.locator('[data-action="fork"]').click();
      await page.waitForURL((url) => !url.pathname.endsWith(sourceId));
      const forkId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');

      await page.locator('[data-session-status="idle"]').waitFor();
      expect(await page.locator('[data-session-status]').innerText()).toBe('Waiting for your message');
      await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'message');
      const origin = page.locator(`[data-forked-from="${sourceId}"]`);
      // The banner names the source and the step, and offers to compare the two sessions.
      expect((await origin.innerText()).replace(/\s+/g, ' ')).toBe(`Forked from ${PERCENT_TASK} · step 2 Compare with the original`);
      const copied = await liveSteps(page);
      expect(kinds(copied)).toEqual(kinds(source.slice(0, 2)));
      expect(copied.map((step) => step.text)).toEqual(source.slice(0, 2).map((step) => step.text));
      expect(copied.map((step) => step.id)).not.toContain(source[0]!.id);
      await screenshot(page, '32-conversation-fork');

      const forkSnapshot = await fetchSnapshot(page, forkId);
      expect(forkSnapshot.session.forkedFrom).toEqual({ sessionId: sourceId, stepId: source[1]!.id, index: 1 });
      expect(forkSnapshot.steps.map((step) => step.copiedFrom?.stepId)).toEqual([source[0]!.id, source[1]!.id]);

      // The fork goes on from its copy; the source does not move.
      await sendMessage(page, 'Use 25% instead.');
      await waitForTurn(page, 1);
      const forked = await liveSteps(page);
      expect(forked.slice(0, 3).map((step) => step.text)).toEqual([source[0]!.text, source[1]!.text, 'Use 25% instead.']);
      expect((await fetchSnapshot(page, sourceId)).chain).toEqual(source.map((step) => step.id));

      // The source, reached by the origin link, takes a message of its own; the fork keeps its chain.
      await origin.locator('a:not([data-action="compare"])').click();
      await page.waitForURL((url) => url.pathname.endsWith(sourceId));
      await waitForCompletion(page);
      await sendMessage(page, 'Add 10 to that.');
      await waitForTurn(page, 1);
      expect((await fetchSnapshot(page, forkId)).chain).toEqual(forked.map((step) => step.id));
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('exports Markdown and JSON downloads, and importing the JSON opens an identical session', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(page, PERCENT_TASK);
      await waitForCompletion(page);
      const original = await liveSteps(page);

      await page.getByRole('button', { name: 'Export or import a session' }).click();
      const [markdown] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: /Export as Markdown/ }).click()]);
      expect(markdown.suggestedFilename()).toMatch(/\.md$/);
      const transcript = await readFile((await markdown.path())!, 'utf8');
      expect(transcript).toContain(PERCENT_TASK);
      expect(transcript).toContain(original[original.length - 1]!.text.split('\n')[0]!.trim());

      await page.getByRole('button', { name: 'Export or import a session' }).click();
      const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: /Export as JSON/ }).click()]);
      expect(json.suggestedFilename()).toMatch(/\.ndjson$/);
      const exportPath = (await json.path())!;
      const lines = (await readFile(exportPath, 'utf8')).trim().split('\n');
      expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'interthought.export', session: { sessionId } });

      // Import it through the same menu: a new session opens, the same chain under new ids.
      await page.locator('.session-header [data-import-input]').setInputFiles(exportPath);
      await page.waitForURL((url) => !url.pathname.endsWith(sessionId));
      const importedId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
      await page.locator('[data-session-status="completed"]').waitFor();
      const imported = await liveSteps(page);
      expect(imported.map(({ kind, status, text }) => ({ kind, status, text }))).toEqual(original.map(({ kind, status, text }) => ({ kind, status, text })));
      const [before, after] = await Promise.all([fetchSnapshot(page, sessionId), fetchSnapshot(page, importedId)]);
      expect(after.session).toMatchObject({ task: before.session.task, agent: before.session.agent, status: before.session.status, revision: before.session.revision });
      expect(after.steps.map((step) => step.content)).toEqual(before.steps.map((step) => step.content));
      expect(await page.locator(`nav a[data-session-id="${importedId}"]`).count()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('refuses a malformed import from the home page, naming the line and why, in Chinese', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url, { locale: 'zh-CN' });
    try {
      const sessionId = await startFromHome(page, APPLES_TASK);
      await waitForCompletion(page);
      const response = await page.request.get(`/api/sessions/${sessionId}/export?format=json`);
      const lines = (await response.text()).trim().split('\n');
      lines[2] = '{"type":"step.delta","sessionId":';
      await page.goto('/');
      // Counted once the rail has its list (the session just made is in it), not while it loads.
      await page.locator(`nav a[data-session-id="${sessionId}"]`).waitFor();
      const before = await page.locator('nav a[data-session-id]').count();

      await page.locator('.home [data-import-input]').setInputFiles({ name: 'broken.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines.join('\n')) });
      const toast = page.locator('.toast.tone-error');
      await toast.waitFor();
      const text = await toast.innerText();
      expect(text).toContain('无法导入 broken.ndjson');
      expect(text).toContain('第 3 行：');
      expect(text).toContain('「导出为 JSON」');
      expect(new URL(page.url()).pathname).toBe('/');
      expect(await page.locator('nav a[data-session-id]').count()).toBe(before);
      await screenshot(page, '33-conversation-import-refused-zh');
      // A refused file says so in a toast; nothing in the console.
      expect(errors.filter((error) => !error.includes('400'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
}
