import { SessionSnapshotBodySchema, type SessionSnapshotBody } from '@interthought/protocol';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** A step as the page shows it on the live chain. */
export interface ShownStep {
  id: string;
  kind: string;
  status: string;
  text: string;
}

/**
 * Type a task on the home page, press Start, and return the new session's id once its page is
 * open. `askBeforeTools` ticks "Ask me before each tool runs" first (every tool call waits).
 */
export async function startFromHome(page: Page, task: string, { askBeforeTools = false } = {}): Promise<string> {
  await page.goto('/');
  const box = page.getByRole('textbox', { name: /What should the agent work on|让智能体做什么/ });
  await box.fill(task);
  if (askBeforeTools) await page.getByRole('checkbox', { name: /Ask me before each tool runs|每次调用工具前先问我/ }).check();
  await page.getByRole('button', { name: /^(Start|开始)/ }).click();
  await page.waitForURL(/\/sessions\/[^/]+$/);
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
}

/**
 * Wait until a step is being written while at least `minSteps` steps are shown. (A specific step's
 * streaming phase can be too short to catch: a page that mounts late folds it in one frame.)
 */
export async function waitForStreaming(page: Page, minSteps = 1, timeout = 15_000): Promise<void> {
  await page.waitForFunction(
    (min) => document.querySelectorAll('.rows [data-row] > [data-step-id]').length >= min && document.querySelector('.rows [data-status="streaming"]') !== null,
    minSteps,
    { timeout, polling: 'raf' },
  );
}

/** Wait until the session finished: a completed final answer and the "completed" status. */
export async function waitForCompletion(page: Page, timeout = 30_000): Promise<void> {
  await page.locator('.rows [data-row] > [data-kind="final_answer"][data-status]:not([data-status="streaming"])').waitFor({ timeout });
  await page.locator('[data-session-status="completed"]').waitFor({ timeout });
}

/**
 * The steps of the live chain, top to bottom (not the superseded ones folded away). The chain is
 * virtualized (only the rows near the viewport are drawn), so the column is walked from the top a
 * window at a time and each drawn row read; the scroll position is put back after.
 */
export function liveSteps(page: Page): Promise<ShownStep[]> {
  return page.evaluate(async () => {
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
    const scroller = document.querySelector<HTMLElement>('[data-scroller]');
    const seen = new Map<string, { row: number; order: number; step: { id: string; kind: string; status: string; text: string } }>();
    const read = () => {
      document.querySelectorAll<HTMLElement>('.rows [data-row] > article[data-step-id]').forEach((element, order) => {
        const body = element.querySelector<HTMLElement>('[data-step-text]');
        const row = Number(element.closest<HTMLElement>('[data-row]')!.dataset.row);
        const step = { id: element.dataset.stepId ?? '', kind: element.dataset.kind ?? '', status: element.dataset.status ?? '', text: (body?.innerText ?? '').trim() };
        seen.set(step.id, { row, order, step });
      });
    };
    if (!scroller) {
      read();
    } else {
      const was = scroller.scrollTop;
      scroller.scrollTop = 0;
      await frame();
      read();
      while (scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 1) {
        const before = scroller.scrollTop;
        scroller.scrollTop = before + scroller.clientHeight * 0.8;
        await frame();
        read();
        if (scroller.scrollTop === before) break;
      }
      scroller.scrollTop = was;
      await frame();
    }
    return [...seen.values()].sort((a, b) => a.row - b.row || a.order - b.order).map((entry) => entry.step);
  });
}

export async function fetchSnapshot(page: Page, sessionId: string): Promise<SessionSnapshotBody> {
  const response = await page.request.get(`/api/sessions/${encodeURIComponent(sessionId)}`);
  expect(response.ok()).toBe(true);
  // Parsed with the contract's schema: the REST body is part of what these tests check.
  return SessionSnapshotBodySchema.parse(await response.json());
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The page's live chain is the server's chain, step for step, with exactly the server's text. */
export function expectChainMatchesSnapshot(shown: ShownStep[], snapshot: SessionSnapshotBody): void {
  const byId = new Map(snapshot.steps.map((step) => [step.stepId, step]));
  expect(shown.map((step) => step.id)).toEqual(snapshot.chain);
  for (const step of shown) {
    const truth = byId.get(step.id)!;
    expect(step.kind).toBe(truth.kind);
    expect(step.status).toBe(truth.status);
    if (step.kind === 'tool_call') expect(JSON.parse(step.text)).toEqual(JSON.parse(truth.content));
    else expect(squash(step.text)).toBe(squash(truth.content));
  }
}

/** Hover a step and press its Correct button; returns the editor's textarea. */
export async function openCorrection(page: Page, stepSelector: string) {
  const step = page.locator(stepSelector);
  await step.hover();
  await step.locator('[data-action="correct"]').click();
  const editor = step.locator('textarea');
  await editor.waitFor();
  return editor;
}
