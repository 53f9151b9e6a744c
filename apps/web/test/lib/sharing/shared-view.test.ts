import type { Hello } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionController } from '$lib/session-page/session-controller.svelte.js';
import SessionHeader from '$lib/session-page/SessionHeader.svelte';
import { ShareDialogState } from '$lib/sharing/share-dialog.svelte.js';
import { FULL_RIGHTS, sessionRights } from '$lib/sharing/session-rights.js';
import { buttonNamed, createTestApp, mountWithApp, settle, testHello } from '../../support/app.js';
import { createHarness } from '../../support/chain-harness.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';
import { useStepCards } from '../../support/step-cards.js';

const { render: renderCard } = useStepCards();

const ada = { id: 'u-ada', name: 'Ada' };
const viewerLink = testHello({ share: { sessionId: 's1', shareId: 'sh1', role: 'viewer' } });
const editorLink = testHello({ share: { sessionId: 's1', shareId: 'sh2', role: 'editor', expiresAt: '2030-01-01T12:00:00.000Z' } });

/** A waiting calculator call and an answer before it, with the card rights of `hello`. */
function chainAs(hello: Hello) {
  const harness = createHarness();
  harness.actions.rights = sessionRights({ hello, sessionId: 's1', owner: ada });
  const thought = harness.log.step('thought', 'I need 15% of 240.');
  const call = harness.log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
  harness.log.askApproval(call);
  harness.deliver();
  return { harness, thought, call };
}

describe('a step card seen through a share link', () => {
  it('offers a viewer nothing that changes the session: no Correct, no Fork, no decision on a waiting call', () => {
    const { harness, thought, call } = chainAs(viewerLink);
    const step = renderCard(harness, thought).article;
    expect(step.querySelector('[data-action="correct"]')).toBeNull();
    expect(step.querySelector('[data-action="fork"]')).toBeNull();
    // Reading stays: copy and collapse.
    expect(buttonNamed(step, /^Copy the text of step 1$/)).toBeDefined();
    const waiting = renderCard(harness, call).article;
    expect(waiting.querySelector('[data-approval="pending"]')).toBeNull();
    // Only the ⋯ menu of reading actions (copy, collapse) is left on it.
    expect(waiting.querySelector('button[data-action]:not([data-action="more"])')).toBeNull();
  });

  it('lets an editor correct and decide, but not fork (a fork belongs to whoever asks, and a link owns nothing)', () => {
    const { harness, thought, call } = chainAs(editorLink);
    const step = renderCard(harness, thought).article;
    expect(step.querySelector('[data-action="correct"]')).not.toBeNull();
    expect(step.querySelector('[data-action="fork"]')).toBeNull();
    const waiting = renderCard(harness, call).article;
    expect(buttonNamed(waiting, /^Approve step 2/)).toBeDefined();
  });

  it('leaves the owner every action, as before sharing', () => {
    const { harness, thought } = chainAs(testHello({ user: ada }));
    expect(harness.actions.rights).toEqual({ ...FULL_RIGHTS, share: true });
    const step = renderCard(harness, thought).article;
    expect(step.querySelector('[data-action="correct"]')).not.toBeNull();
    expect(step.querySelector('[data-action="fork"]')).not.toBeNull();
  });
});

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

/** The header of session s1 (owned by Ada) as a page with `hello` shows it. */
async function header(hello: Hello, locale: 'en' | 'zh' = 'en') {
  const test = createTestApp(locale, { hello });
  const log = new EventLog('s1');
  const frames = new ManualFrames();
  const controller = new SessionController({ ...test.app, i18n: test.i18n, schedule: frames.schedule }, log.sessionId);
  const snapshot = log.emptySnapshot();
  controller.view.loadSnapshot({ ...snapshot, session: { ...snapshot.session, owner: ada } });
  const shareDialog = new ShareDialogState({ client: test.app.client, i18n: test.i18n, announcer: test.app.announcer, origin: 'http://h' }, 's1');
  const mounted = mountWithApp(SessionHeader, { controller, shareDialog }, test);
  cleanup = mounted.destroy;
  await settle();
  const controls = Array.from(mounted.target.querySelectorAll('.controls button')).map((button) => button.getAttribute('aria-label'));
  return { target: mounted.target, controls, shareDialog };
}

describe('the session header seen through a share link', () => {
  it('tells a viewer the session is shared read-only and shows none of its controls', async () => {
    const { target, controls } = await header(viewerLink);
    expect(target.querySelector('[data-shared-role="viewer"]')?.textContent).toContain('Shared with you · read-only');
    expect(controls).toEqual([]);
  });

  it('tells an editor it can edit: pause, resume and cancel, but no Share and no Delete', async () => {
    const { target, controls } = await header(editorLink, 'zh');
    const banner = target.querySelector('[data-shared-role="editor"]')!;
    expect(banner.textContent).toContain('与你共享 · 可编辑');
    expect(banner.textContent).toContain('链接有效期至');
    expect(controls).toEqual(['暂停智能体', '让智能体继续', '永久取消此会话']);
  });

  it('gives the owner a Share button that opens the dialog, and no banner', async () => {
    const { target, controls, shareDialog } = await header(testHello({ user: ada }));
    expect(target.querySelector('[data-shared-role]')).toBeNull();
    expect(controls).toEqual(['Pause the agent', 'Resume the agent', 'Cancel the session for good', 'Share this session', 'Delete session']);
    buttonNamed(target, /^Share this session$/)!.click();
    expect(shareDialog.open).toBe(true);
  });

  it('shows another signed-in user (not the owner, not an admin) the session read-only, without a share banner', async () => {
    const { target, controls } = await header(testHello({ user: { id: 'u-bob', name: 'Bob' } }));
    expect(target.querySelector('[data-shared-role]')).toBeNull();
    expect(controls).toEqual([]);
  });
});
