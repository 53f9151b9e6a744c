import type { ShareRecord } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { InterthoughtError } from '@interthought/protocol';
import { ShareDialogState } from '$lib/sharing/share-dialog.svelte.js';
import ShareDialog from '$lib/sharing/ShareDialog.svelte';
import { buttonNamed, createTestApp, mountWithApp, settle, type TestApp } from '../../support/app.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

const HOUR = 60 * 60 * 1000;

function render(test: TestApp, shares: ShareRecord[] = []) {
  const state = new ShareDialogState({ client: test.app.client, i18n: test.i18n, announcer: test.app.announcer, origin: 'http://127.0.0.1:3000' }, 's1');
  const mounted = mountWithApp(ShareDialog, { dialog: state, shares, isOwn: (by: string | undefined) => by === 'u-ada' }, test);
  cleanup = mounted.destroy;
  return { state, dialog: mounted.target.querySelector('dialog')! };
}

const shares: ShareRecord[] = [
  { shareId: 'sh1', role: 'viewer', createdAt: new Date(Date.now() - 2 * HOUR).toISOString(), by: 'u-ada', byName: 'Ada' },
  { shareId: 'sh2', role: 'editor', createdAt: new Date(Date.now() - HOUR).toISOString(), expiresAt: new Date(Date.now() + 24 * HOUR).toISOString(), by: 'u-bob', byName: 'Bob' },
];

describe('ShareDialog', () => {
  it('opens modal as the Share dialog, a viewer link that never expires by default', async () => {
    const test = createTestApp();
    const { state, dialog } = render(test);
    expect(dialog.open).toBe(false);
    state.show();
    await settle();
    expect(dialog.open).toBe(true);
    expect(document.getElementById(dialog.getAttribute('aria-labelledby')!)?.textContent).toBe('Share this session');
    const checked = dialog.querySelector<HTMLInputElement>('input[name="share-role"]:checked');
    expect(checked?.value).toBe('viewer');
    expect(dialog.querySelector('select')?.value).toBe('never');
    expect(dialog.querySelector('.none')?.textContent).toBe('No links yet.');
  });

  it('makes a link with the chosen role and expiry, shows it once with Copy focused, and forgets it on close', async () => {
    const test = createTestApp();
    test.answer = async () => ({ type: 'session.shared', requestId: 'r1', sessionId: 's1', shareId: 'sh9', role: 'editor', expiresAt: '2030-01-02T00:00:00.000Z', token: 't0k', url: '/sessions/s1?share=t0k' });
    const { state, dialog } = render(test);
    state.show();
    await settle();
    const editor = dialog.querySelector<HTMLInputElement>('input[value="editor"]')!;
    editor.click();
    const select = dialog.querySelector('select')!;
    select.value = 'day';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    buttonNamed(dialog, /^Create link$/)!.click();
    await settle();
    await settle();

    expect(test.requests).toEqual([{ type: 'session.share', sessionId: 's1', role: 'editor', expiresInSec: 86_400 }]);
    const link = dialog.querySelector<HTMLInputElement>('[data-share-url]')!;
    expect(link.value).toBe('http://127.0.0.1:3000/sessions/s1?share=t0k');
    expect(link.readOnly).toBe(true);
    expect(document.activeElement).toBe(buttonNamed(dialog, /^Copy the share link$/));
    expect(dialog.querySelector('[data-testid="share-created"]')?.textContent).toContain('Can edit');

    state.close();
    await settle();
    expect(dialog.open).toBe(false);
    state.show();
    await settle();
    expect(dialog.querySelector('[data-share-url]')).toBeNull();
  });

  it('lists the links that work, newest first, with role, who made them and expiry, each with Revoke', async () => {
    const test = createTestApp();
    test.answer = async () => ({ type: 'session.unshared', requestId: 'r1', sessionId: 's1', shareId: 'sh1' });
    const { state, dialog } = render(test, shares);
    state.show();
    await settle();
    const rows = Array.from(dialog.querySelectorAll('li'));
    expect(rows.map((row) => row.dataset.shareId)).toEqual(['sh2', 'sh1']);
    expect(rows[0]?.textContent).toContain('Can edit');
    expect(rows[0]?.textContent).toContain('by Bob · 1 hour ago');
    expect(rows[0]?.textContent).toContain('expires tomorrow');
    expect(rows[1]?.textContent).toContain('by you · 2 hours ago');
    expect(rows[1]?.textContent).toContain('never expires');

    buttonNamed(rows[1]!, /^Revoke the link “Can view”/)!.click();
    await settle();
    expect(test.requests).toEqual([{ type: 'session.unshare', sessionId: 's1', shareId: 'sh1' }]);
  });

  it('says why the server refused, with what to do, in Chinese', async () => {
    const test = createTestApp('zh');
    test.answer = async () => {
      throw new InterthoughtError('FORBIDDEN', 'Only the session’s owner or an admin may share it.');
    };
    const { state, dialog } = render(test);
    state.show();
    await settle();
    expect(dialog.querySelector('h2')?.textContent).toBe('共享此会话');
    buttonNamed(dialog, /^创建链接$/)!.click();
    await settle();
    await settle();
    const error = dialog.querySelector<HTMLElement>('[data-testid="share-error"]')!;
    expect(error.dataset.code).toBe('FORBIDDEN');
    expect(error.textContent).toContain('操作未成功：Only the session’s owner or an admin may share it.');
    expect(error.textContent).toContain('只有会话的所有者或管理员可以');
  });
});
