// @vitest-environment node
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { answerTurn, content, toolCall, toolTurn } from '../../../server/test/agents/openai/support/wire.js';
import { openPage, screenshot } from './support/browser.js';
import { fetchSnapshot, liveSteps, waitForCompletion } from './support/chain-page.js';
import { PERCENT_TASK } from './support/e2e-env.js';
import { useFakeOpenAIServerAndBrowser } from './support/shared-env.js';

// Human in the loop (PROTOCOL.md §25) in real Chromium against the real server: questions asked
// by an LLM agent on a fake OpenAI-compatible endpoint (its real wire format), approvals given once,
// a rule from the new-session form and breakpoints in step-by-step mode with the demo agent.

const env = useFakeOpenAIServerAndBrowser((fake) => {
  const file = join(mkdtempSync(join(tmpdir(), 'interthought-hitl-e2e-')), 'agents.json');
  writeFileSync(file, JSON.stringify({ agents: { hosted: { type: 'openai', description: 'Asks before it answers', baseURL: fake.baseURL, model: 'small-model', retry: { baseDelayMs: 5 } } } }));
  return { INTERTHOUGHT_AGENTS_CONFIG: file, OPENAI_BASE_URL: '', OPENAI_API_KEY: '' };
});

const QUESTION = '.rows [data-row] > [data-kind="tool_call"] [data-question]';
const CALL = '.rows [data-row] > [data-kind="tool_call"]';

/** Start a session from the home page, on `agent` (the demo agent when absent), after `prepare` set its options. */
async function start(page: Page, task: string, { agent, prepare }: { agent?: string; prepare?: () => Promise<void> } = {}): Promise<string> {
  await page.goto('/');
  await page.getByRole('textbox', { name: /What should the agent work on/ }).fill(task);
  if (agent) await page.locator('label.agent', { hasText: agent }).click();
  await prepare?.();
  await page.getByRole('button', { name: /^Start/ }).click();
  await page.waitForURL(/\/sessions\/[^/]+$/);
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
}

/** Open the form's rules and breakpoints editors. */
async function openRules(page: Page): Promise<void> {
  await page.locator('[data-action="rules-and-breakpoints"]').click();
  await page.locator('[data-rules-editor]').waitFor();
}

/** The model asks with `ask_user`, then answers with `reply` once it read the user's answer. */
function scriptQuestion(input: { question: string; choices?: string[] }, reply: string): void {
  env().fake.reply(toolTurn(...toolCall(0, 'call_ask', 'ask_user', JSON.stringify(input))));
  env().fake.reply(answerTurn(...content(reply)));
}

describe('human in the loop in Chromium', { timeout: 90_000 }, () => {
  it('asks a question with choices: the card takes the focus, "waiting for you" shows everywhere, a choice answers it', async () => {
    scriptQuestion({ question: 'Which city do you mean?', choices: ['Paris', 'Rome'] }, 'Rome, then.');
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const task = 'Plan a weekend trip.';
      const sessionId = await start(page, task, { agent: 'hosted' });
      const card = page.locator(`${QUESTION}[data-question="pending"]`);
      await card.waitFor({ timeout: 20_000 });
      expect(await card.locator('[data-question-text]').innerText()).toBe('Which city do you mean?');
      // The answer field has the focus as soon as the question appears.
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('answer');
      // Waiting for you: the header, the banner, the rail and the tab title.
      expect(await page.locator('[data-session-status]').innerText()).toBe('Waiting for you');
      expect(await page.locator('[data-banner="question"]').innerText()).toContain('The agent asks: Which city do you mean?');
      await expect.poll(() => page.locator(`nav a[data-session-id="${sessionId}"] .meta`).innerText()).toMatch(/^Waiting for you · hosted/);
      expect(await page.title()).toBe(`⏸ Waiting for you · ${task}`);
      expect(await page.locator('[data-composer]').innerText()).toContain('Answer the agent’s question above first');
      await screenshot(page, 'hitl-question-waiting');
      // On a phone the card, its choices and its field fit the width: nothing to scroll sideways.
      await page.setViewportSize({ width: 390, height: 844 });
      await card.scrollIntoViewIfNeeded();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const box = await card.boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
      await screenshot(page, 'hitl-question-phone');
      await page.setViewportSize({ width: 1280, height: 860 });

      await card.locator('[data-choice="1"]').click();
      await waitForCompletion(page);
      const record = page.locator(`${QUESTION}[data-question="answered"]`);
      expect(await record.locator('[data-answer]').innerText()).toBe('Answer: Rome');
      expect(await record.locator('[data-question-outcome]').innerText()).toMatch(/^Answered by you · \S/);
      expect(await record.locator('textarea').count()).toBe(0);
      expect((await liveSteps(page)).map((step) => step.kind)).toEqual(['tool_call', 'observation', 'final_answer']);
      expect(await page.title()).toBe(`${task} · Interthought`);

      const snapshot = await fetchSnapshot(page, sessionId);
      const answer = snapshot.steps.find((step) => step.kind === 'observation');
      expect(answer?.result).toMatchObject({ answer: 'Rome', choice: 1 });
      // The model read the answer as the tool's result.
      expect(JSON.stringify(env().fake.requests[env().fake.requests.length - 1]?.body)).toContain('Rome');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('answers a question by typing: Shift+Enter is a new line, Enter answers', async () => {
    scriptQuestion({ question: 'What should the report cover?' }, 'I will cover both.');
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await start(page, 'Write a short report.', { agent: 'hosted' });
      const field = page.locator(`${QUESTION}[data-question="pending"] textarea`);
      await field.waitFor({ timeout: 20_000 });
      await expect.poll(() => field.evaluate((element) => element === document.activeElement)).toBe(true);
      // Esc leaves the field for the step (j/k go on from there); m comes back to it: the answer is the message the agent waits for.
      await page.keyboard.press('Escape');
      expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.kind)).toBe('tool_call');
      await page.keyboard.press('m');
      expect(await field.evaluate((element) => element === document.activeElement)).toBe(true);
      await page.keyboard.type('Sales');
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type('and costs');
      expect(await field.inputValue()).toBe('Sales\nand costs');
      await page.keyboard.press('Enter');
      await waitForCompletion(page);
      expect(await page.locator(`${QUESTION} [data-answer]`).innerText()).toBe('Answer: Sales\nand costs');
      const snapshot = await fetchSnapshot(page, sessionId);
      expect(snapshot.steps.find((step) => step.kind === 'observation')?.result).toMatchObject({ answer: 'Sales\nand costs' });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('always allows calculator for the session: the next call runs without asking, says why, and Forget takes it back', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await start(page, PERCENT_TASK, { prepare: () => page.getByRole('checkbox', { name: /Ask me before each tool runs/ }).check() });
      const prompt = page.locator(`${CALL} [data-approval="pending"]`);
      await prompt.waitFor({ timeout: 20_000 });
      await prompt.locator('[data-action="approve-always"]').click();
      await waitForCompletion(page);
      expect(await page.locator(`${CALL} [data-approval="approved"]`).first().innerText()).toMatch(/^Approved by you/);

      // The session menu lists what is allowed without asking.
      await page.locator('[data-action="session-menu"]').click();
      const remembered = page.locator('[data-remembered]');
      await remembered.waitFor();
      expect(await remembered.locator('[data-action="forget"][data-tool="calculator"]').innerText()).toContain('calculator · by you');
      await page.keyboard.press('Escape');

      // A follow-up: the demo agent calls the calculator again, and it runs without asking.
      const composer = page.locator('[data-composer] textarea');
      await composer.fill('Add 10 to that.');
      await composer.press('Enter');
      await page.waitForFunction(
        () => {
          const steps = Array.from(document.querySelectorAll<HTMLElement>('.rows [data-row] > article[data-step-id]'));
          const last = steps[steps.length - 1];
          return steps.some((step) => step.dataset.kind === 'user_message') && last?.dataset.kind === 'final_answer' && document.querySelector('[data-session-status="completed"]') !== null;
        },
        undefined,
        { timeout: 30_000, polling: 200 },
      );
      const standing = page.locator(`${CALL} [data-via="remembered"]`);
      expect(await standing.count()).toBe(1);
      expect(await standing.innerText()).toMatch(/^Ran without asking: you allowed calculator for this session · \S/);
      expect(await page.locator(`${CALL} [data-approval="pending"]`).count()).toBe(0);
      await screenshot(page, 'hitl-remembered');

      await page.locator('[data-action="session-menu"]').click();
      await page.locator('[data-remembered] [data-action="forget"][data-tool="calculator"]').click();
      await expect.poll(async () => (await fetchSnapshot(page, sessionId)).remembered ?? []).toEqual([]);
      await page.locator('[data-action="session-menu"]').click();
      await page.locator('[role="menu"]').waitFor();
      expect(await page.locator('[data-remembered]').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('sends a deny rule written on the form: the call is refused without asking and the chain says which rule', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await start(page, PERCENT_TASK, {
        prepare: async () => {
          await openRules(page);
          await page.locator('select[name="rules-preset"]').selectOption('custom');
          await page.locator('[data-rule-row="0"] input[name="rule-tool"]').fill('calculator');
          await page.locator('[data-rule-row="0"] select[name="rule-decision"]').selectOption('deny');
          await screenshot(page, 'hitl-rules-form');
        },
      });
      await waitForCompletion(page);
      const refusal = page.locator('.rows [data-row] > [data-kind="observation"] [data-refusal]');
      expect(await refusal.innerText()).toContain('The session’s rule 1 refused this call, so calculator did not run.');
      expect(await page.locator(`${CALL} [data-via="rule"]`).innerText()).toMatch(/^Refused by the session’s rule 1/);
      expect(await page.locator(`${CALL} [data-approval="pending"]`).count()).toBe(0);
      const snapshot = await fetchSnapshot(page, sessionId);
      expect(snapshot.steps.find((step) => step.kind === 'observation')?.result).toMatchObject({ refused: true, by: 'policy', rule: 0 });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('stops step by step: a marker at each stop, the header says where, Edit keeps it paused, Resume goes on', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await start(page, PERCENT_TASK, {
        prepare: async () => {
          await openRules(page);
          await page.getByRole('radio', { name: 'Step by step', exact: true }).check();
        },
      });
      const banner = page.locator('[data-banner="breakpoint"]');
      const resume = banner.locator('[data-action="resume-breakpoint"]');
      await banner.waitFor({ timeout: 20_000 });
      expect(await banner.innerText()).toContain('Stopped at step 1, after this thought.');
      expect(await page.locator('[data-session-status]').innerText()).toBe('Paused');
      expect(await page.locator('.rows [data-row] > [data-kind="thought"] [data-breakpoint]').count()).toBe(1);
      await screenshot(page, 'hitl-breakpoint-thought');

      // Resume to the next stops: the action, then the calculator call before it runs.
      await resume.click();
      await expect.poll(() => banner.innerText(), { timeout: 15_000 }).toContain('Stopped at step 2');
      await resume.click();
      await expect.poll(() => banner.innerText(), { timeout: 15_000 }).toContain('Stopped at step 3, before calculator runs.');

      // Edit the stopped call: the corrected call is the head, the session stays paused.
      await page.locator(`${CALL} [data-action="edit-stopped"]`).click();
      const editor = page.locator(`${CALL} textarea`);
      await editor.waitFor();
      await editor.fill(JSON.stringify({ expression: '240 * 0.25' }));
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator(`${CALL}[data-status="corrected"]`).waitFor({ timeout: 15_000 });
      expect(await page.locator('[data-session-status]').innerText()).toBe('Paused');
      const calls = (await fetchSnapshot(page, sessionId)).steps.filter((step) => step.kind === 'tool_call' && step.status !== 'invalidated');
      expect(calls.map((call) => JSON.parse(call.content))).toEqual([{ expression: '240 * 0.25' }]);

      // Resume runs the edited call (its result is the agent's next step, a stop too); the final answer is the last stop.
      await page.getByRole('button', { name: 'Resume the agent', exact: true }).click();
      await expect.poll(() => banner.innerText(), { timeout: 20_000 }).toContain('Stopped at step 4, after this observation.');
      expect((await liveSteps(page))[3]?.text).toContain('60');
      await resume.click();
      await expect.poll(() => banner.innerText(), { timeout: 20_000 }).toContain('Stopped at step 5, after this final answer.');
      await resume.click();
      await waitForCompletion(page);
      const steps = await liveSteps(page);
      expect(steps[steps.length - 1]?.text).toContain('60');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
