// @vitest-environment node
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, screenshot } from './support/browser.js';
import { liveSteps, openCorrection, startFromHome, waitForCompletion } from './support/chain-page.js';
import { PERCENT_TASK } from './support/e2e-env.js';
import { signJwt, type TokenUser } from './support/jwt.js';
import { useServerAndBrowser } from './support/shared-env.js';

// Users and share links (PROTOCOL.md §21) in real Chromium against a real server with JWT sign-in.
const SECRET = 'e2e-jwt-secret-of-at-least-32-characters-0123456789';
const LOGIN_URL = 'http://127.0.0.1:9/login';
const ADA: TokenUser = { id: 'u-ada', name: 'Ada', admin: true };

const env = useServerAndBrowser({ INTERTHOUGHT_AUTH: 'jwt', INTERTHOUGHT_JWT_SECRET: SECRET, INTERTHOUGHT_JWT_ADMIN_CLAIM: 'admin', INTERTHOUGHT_LOGIN_URL: LOGIN_URL });

const CALL = '.rows [data-row] > [data-kind="tool_call"]';

/** A page signed in as `user` (the token taken from the address, as a sign-in redirect would hand it over). */
async function signedIn(user: TokenUser) {
  const opened = await openPage(env().browser, env().server.url);
  await opened.page.goto(`/?token=${encodeURIComponent(await signJwt(SECRET, user))}`);
  await opened.page.locator('[data-testid="rail-user"]').waitFor();
  return opened;
}

/** Open the Share dialog, make a link with `role` (and expiry), return its address; the dialog stays open. */
async function makeLink(page: Page, role: 'Edit' | 'View' = 'View', expiry?: string): Promise<string> {
  await page.getByRole('button', { name: 'Share this session' }).click();
  const dialog = page.locator('[data-testid="share-dialog"]');
  await dialog.waitFor();
  await dialog.locator('label.role', { hasText: role }).click();
  if (expiry !== undefined) await dialog.locator('select').selectOption(expiry);
  await dialog.getByRole('button', { name: 'Create link' }).click();
  const link = dialog.locator('[data-share-url]');
  await link.waitFor();
  return link.inputValue();
}

/** Every WebSocket the page opens, to count the attempts. */
function countSockets(page: Page): () => number {
  let opened = 0;
  page.on('websocket', () => opened++);
  return () => opened;
}

/** The controls that would change the session, as the page shows them. */
const EDITING = ['[data-composer]', '[data-action="correct"]', '[data-action="fork"]', '[data-action="approve"]', '[data-action="delete-session"]', '[data-action="share-session"]'];

describe('users and share links, in Chromium', { timeout: 120_000 }, () => {
  it('asks a visitor without a token to sign in (mode, reason, login page), takes a pasted JWT, names the user in the rail, and signs out', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await page.goto('/');
      await page.locator('#access-title').waitFor();
      expect(await page.locator('#access-title').textContent()).toBe('Sign in to use Interthought');
      expect(await page.locator('[data-access-problem]').innerText()).toContain('a token (a JWT)');
      expect(await page.locator('[data-access-reason]').innerText()).toMatch(/^The server says: \S/);
      expect(await page.locator('a[data-action="login"]').getAttribute('href')).toBe(LOGIN_URL);
      await screenshot(page, '40-sign-in-jwt');

      await page.getByLabel('Or paste a sign-in token', { exact: true }).fill(await signJwt(SECRET, ADA));
      await page.getByRole('button', { name: 'Connect' }).click();
      await page.getByRole('heading', { level: 1, name: 'What should the agent work on?' }).waitFor();
      const user = page.locator('[data-testid="rail-user"]');
      await user.waitFor();
      expect(await user.getAttribute('aria-label')).toBe('Signed in as Ada');
      expect(await user.locator('.admin').innerText()).toBe('admin');
      await screenshot(page, '41-signed-in-rail');

      // Signing out drops the tab's token and goes to the operator's sign-in page.
      await page.route(`${LOGIN_URL}**`, (route) => route.fulfill({ contentType: 'text/html', body: '<h1>Operator sign-in</h1>' }));
      await user.locator('[data-action="sign-out"]').click();
      await page.waitForURL(LOGIN_URL);
      await page.goto(env().server.url);
      await page.locator('#access-title').waitFor();
      expect(await page.locator('#access-title').textContent()).toBe('Sign in to use Interthought');
      // The page connects at once and asks who it is alongside: without a token that first socket is refused, which
      // Chromium reports as a 401 or, once the context has seen a Bearer challenge, as an authentication failure.
      expect(errors.filter((error) => !error.includes('401') && !error.includes('HTTP Authentication failed'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says the sign-in expired when the server closes a signed-in tab at its JWT’s expiry (4401), instead of retrying', async () => {
    const { page, context } = await openPage(env().browser, env().server.url);
    const sockets = countSockets(page);
    try {
      await page.goto(`/?token=${encodeURIComponent(await signJwt(SECRET, { id: 'u-cy', name: 'Cy' }, '3s'))}`);
      await page.locator('[data-testid="rail-user"]').waitFor();
      await page.getByRole('heading', { level: 1, name: 'What should the agent work on?' }).waitFor();
      await page.locator('#access-title').waitFor({ timeout: 15_000 });
      expect(await page.locator('#access-title').textContent()).toBe('Your sign-in has expired');
      expect(await page.locator('[data-access-reason]').innerText()).toBe('Sign in again to go on: the page picks up where it was.');
      const attempts = sockets();
      await page.waitForTimeout(1_500);
      expect(sockets()).toBe(attempts);

      // A fresh token goes on from there.
      await page.getByLabel('Or paste a sign-in token', { exact: true }).fill(await signJwt(SECRET, { id: 'u-cy', name: 'Cy' }));
      await page.getByRole('button', { name: 'Connect' }).click();
      await page.getByRole('heading', { level: 1, name: 'What should the agent work on?' }).waitFor();
      expect(sockets()).toBeGreaterThan(attempts);
    } finally {
      await context.close();
    }
  });

  it('shares a session read-only: the viewer, with no account, follows it live without a single editing control, until the owner revokes the link', async () => {
    const owner = await signedIn(ADA);
    const viewer = await openPage(env().browser, env().server.url);
    const viewerSockets = countSockets(viewer.page);
    try {
      const sessionId = await startFromHome(owner.page, PERCENT_TASK, { askBeforeTools: true });
      await owner.page.locator(`${CALL} [data-approval="pending"]`).waitFor({ timeout: 20_000 });
      const link = await makeLink(owner.page);
      expect(link).toMatch(new RegExp(`^${env().server.url}/sessions/${sessionId}\\?share=\\S+$`));
      await screenshot(owner.page, '42-share-dialog');
      await owner.page.keyboard.press('Escape');

      await viewer.page.goto(link);
      await viewer.page.locator('[data-shared-role="viewer"]').waitFor();
      expect(await viewer.page.locator('[data-shared-role="viewer"]').innerText()).toContain('Shared with you · read-only');
      // The link leaves the address bar at once; the tab keeps it.
      expect(new URL(viewer.page.url()).search).toBe('');
      await viewer.page.locator('[data-session-status="waiting"]').waitFor();
      expect((await liveSteps(viewer.page)).map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call']);
      expect(await viewer.page.locator('.banner.waiting').innerText()).toContain('The agent waits for a decision on calculator.');
      for (const selector of EDITING) expect(await viewer.page.locator(selector).count(), selector).toBe(0);
      expect(await viewer.page.locator('.session-header .controls button').evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label')))).toEqual([
        'Find in the chain',
        'Outline of the chain',
        'Export or import a session',
      ]);
      // Its list holds the shared session only.
      await viewer.page.locator(`nav a[data-session-id="${sessionId}"]`).waitFor();
      expect(await viewer.page.locator('nav a[data-session-id]').count()).toBe(1);
      await screenshot(viewer.page, '43-shared-viewer');

      // Live: the owner approves, the viewer watches the rest stream in.
      await owner.page.locator(`${CALL} [data-action="approve"]`).click();
      await waitForCompletion(viewer.page);
      expect((await liveSteps(viewer.page)).map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
      expect(await viewer.page.locator(`${CALL} [data-approval="approved"]`).innerText()).toMatch(/^Approved by Ada · \S/);

      // Reading includes exporting: the REST call presents the link too, and the menu offers no import.
      await viewer.page.getByRole('button', { name: 'Export or import a session' }).click();
      expect(await viewer.page.locator('[data-action="import-session"]').count()).toBe(0);
      const [markdown] = await Promise.all([viewer.page.waitForEvent('download'), viewer.page.getByRole('menuitem', { name: /Export as Markdown/ }).click()]);
      expect(await readFile((await markdown.path())!, 'utf8')).toContain(PERCENT_TASK);

      // A reload keeps the link (session storage): still read-only.
      await viewer.page.reload();
      await viewer.page.locator('[data-shared-role="viewer"]').waitFor();
      await viewer.page.locator('[data-session-status="completed"]').waitFor();
      for (const selector of EDITING) expect(await viewer.page.locator(selector).count(), selector).toBe(0);

      // The owner's correction is named for the viewer, and is "you" for the owner.
      await waitForCompletion(owner.page);
      const editor = await openCorrection(owner.page, CALL);
      await editor.fill(JSON.stringify({ expression: '240 * 0.2' }));
      await owner.page.getByRole('button', { name: 'Save', exact: true }).click();
      const corrected = viewer.page.locator(`${CALL}[data-status="corrected"]`);
      await corrected.waitFor({ timeout: 15_000 });
      expect(await corrected.innerText()).toContain('corrected by Ada');
      expect(await owner.page.locator(`${CALL}[data-status="corrected"]`).innerText()).toContain('corrected by you');
      await waitForCompletion(viewer.page);

      // Revoked in the owner's tab: the viewer's page says so, and stops trying.
      await owner.page.getByRole('button', { name: 'Share this session' }).click();
      const row = owner.page.locator('[data-testid="share-dialog"] li[data-role="viewer"]');
      expect(await row.innerText()).toContain('by you');
      await row.getByRole('button', { name: /^Revoke/ }).click();
      await row.waitFor({ state: 'detached' });
      await viewer.page.locator('[data-testid="share-ended"]').waitFor();
      expect(await viewer.page.locator('#share-ended-title').textContent()).toBe('This share link was revoked or has expired');
      await screenshot(viewer.page, '44-share-ended');
      const attempts = viewerSockets();
      await viewer.page.waitForTimeout(1_500);
      expect(viewerSockets()).toBe(attempts);
      // After a reload too: the server no longer grants the link the tab holds.
      await viewer.page.reload();
      await viewer.page.locator('[data-testid="share-ended"]').waitFor();
      await viewer.page.getByRole('button', { name: '中文' }).click();
      expect(await viewer.page.locator('#share-ended-title').textContent()).toBe('此共享链接已被撤销或已过期');

      expect(owner.errors).toEqual([]);
    } finally {
      await owner.context.close();
      await viewer.context.close();
    }
  });

  it('shares a session to edit: the editor corrects and steers it, but sees no Delete, Share or Fork', async () => {
    const owner = await signedIn(ADA);
    const editor = await openPage(env().browser, env().server.url);
    try {
      const sessionId = await startFromHome(owner.page, PERCENT_TASK);
      await waitForCompletion(owner.page);
      const link = await makeLink(owner.page, 'Edit', 'day');
      expect(await owner.page.locator('[data-testid="share-created"]').innerText()).toContain('Can edit · expires tomorrow');
      await owner.page.keyboard.press('Escape');

      await editor.page.goto(link);
      await editor.page.locator('[data-shared-role="editor"]').waitFor();
      expect(await editor.page.locator('[data-shared-role="editor"]').innerText()).toContain('Shared with you · can edit');
      await waitForCompletion(editor.page);
      expect(await editor.page.locator('[data-composer]').count()).toBe(1);
      for (const selector of ['[data-action="fork"]', '[data-action="delete-session"]', '[data-action="share-session"]']) {
        expect(await editor.page.locator(selector).count(), selector).toBe(0);
      }
      await screenshot(editor.page, '45-shared-editor');

      const input = await openCorrection(editor.page, CALL);
      await input.fill(JSON.stringify({ expression: '240 * 0.25' }));
      await editor.page.getByRole('button', { name: 'Save', exact: true }).click();
      await editor.page.locator(`${CALL}[data-status="corrected"]`).waitFor({ timeout: 15_000 });
      await owner.page.locator(`${CALL}[data-status="corrected"]`).waitFor({ timeout: 15_000 });
      await Promise.all([waitForCompletion(editor.page), waitForCompletion(owner.page)]);
      expect((await liveSteps(owner.page)).find((step) => step.kind === 'observation')?.text).toContain('60');
      expect(await owner.page.locator(`nav a[data-session-id="${sessionId}"]`).count()).toBe(1);
      expect(editor.errors).toEqual([]);
      expect(owner.errors).toEqual([]);
    } finally {
      await owner.context.close();
      await editor.context.close();
    }
  });
});
