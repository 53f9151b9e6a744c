import { afterEach, describe, expect, it } from 'vitest';
import DeleteSessionDialog from '$lib/session-list/DeleteSessionDialog.svelte';
import { buttonNamed, createTestApp, mountWithApp, settle, type TestApp } from '../../support/app.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

function render(test: TestApp) {
  const mounted = mountWithApp(DeleteSessionDialog, {}, test);
  cleanup = mounted.destroy;
  const dialog = mounted.target.querySelector('dialog')!;
  return { dialog, target: mounted.target };
}

const TASK = 'A train travels 180 km in 2.5 hours. What is its average speed?';

describe('DeleteSessionDialog', () => {
  it('stays closed until a deletion is asked for, then asks the question about that session', async () => {
    const test = createTestApp();
    const { dialog } = render(test);
    expect(dialog.open).toBe(false);
    expect(dialog.textContent?.trim()).toBe('');

    test.app.deletion.ask({ sessionId: 's1', task: TASK });
    await settle();
    expect(dialog.open).toBe(true);
    const title = document.getElementById(dialog.getAttribute('aria-labelledby')!);
    expect(title?.textContent).toBe('Delete this session for everyone watching it?');
    expect(document.getElementById(dialog.getAttribute('aria-describedby')!)?.textContent).toMatch(/can’t be undone/);
    expect(dialog.querySelector('.task')?.textContent).toContain(TASK);
    // Cancel comes first, so opening the dialog puts the focus on the safe choice.
    expect(Array.from(dialog.querySelectorAll('button')).map((button) => button.textContent?.trim())).toEqual(['Cancel', 'Delete']);
  });

  it('sends session.delete for the session asked about when Delete is pressed, and closes', async () => {
    const test = createTestApp();
    const { dialog } = render(test);
    let answer: (() => void) | undefined;
    test.answer = () => new Promise<void>((resolve) => (answer = resolve));
    test.app.deletion.ask({ sessionId: 's1', task: TASK });
    await settle();

    buttonNamed(dialog, /^Delete$/)!.click();
    await settle();
    expect(test.requests).toEqual([{ type: 'session.delete', sessionId: 's1' }]);
    expect(buttonNamed(dialog, /^Deleting…$/)?.disabled).toBe(true);
    expect(buttonNamed(dialog, /^Cancel$/)?.disabled).toBe(true);

    answer?.();
    await settle();
    expect(dialog.open).toBe(false);
    expect(test.left).toEqual(['s1']);
    expect(test.app.toaster.toasts.map((toast) => toast.title)).toEqual(['Session deleted']);
  });

  it('shows a refusal inside the dialog with the server’s message and what to do', async () => {
    const test = createTestApp();
    const { dialog } = render(test);
    test.answer = () => Promise.reject(Object.assign(new Error('Too many requests.'), { code: 'RATE_LIMITED' }));
    test.app.deletion.ask({ sessionId: 's1', task: TASK });
    await settle();

    buttonNamed(dialog, /^Delete$/)!.click();
    await settle();
    expect(dialog.open).toBe(true);
    const alert = dialog.querySelector('[role="alert"]');
    expect(alert?.textContent).toContain('The session was not deleted: Too many requests.');
    expect(alert?.textContent).toContain('Wait a moment and try again.');
    // It may work next time: both choices stay.
    expect(buttonNamed(dialog, /^Delete$/)?.disabled).toBe(false);
    expect(buttonNamed(dialog, /^Cancel$/)?.disabled).toBe(false);
  });

  it('says so when the session was already deleted elsewhere, and offers only Close', async () => {
    const test = createTestApp();
    const { dialog } = render(test);
    test.answer = () => Promise.reject(Object.assign(new Error('Session s1 does not exist.'), { code: 'SESSION_NOT_FOUND' }));
    test.app.deletion.ask({ sessionId: 's1', task: TASK });
    await settle();

    buttonNamed(dialog, /^Delete$/)!.click();
    await settle();
    expect(dialog.open).toBe(true);
    const alert = dialog.querySelector('[role="alert"]');
    expect(alert?.textContent).toContain('The session was not deleted: Session s1 does not exist.');
    expect(alert?.textContent).toContain('It was already deleted, perhaps from another window.');
    expect(test.left).toEqual([]);
    // Nothing is left to delete: only Close remains, and it has the focus.
    expect(Array.from(dialog.querySelectorAll('button')).map((button) => button.textContent?.trim())).toEqual(['Close']);
    expect(document.activeElement?.textContent?.trim()).toBe('Close');
    buttonNamed(dialog, /^Close$/)!.click();
    await settle();
    expect(dialog.open).toBe(false);
  });

  it('closes without sending anything on Cancel', async () => {
    const test = createTestApp();
    const { dialog } = render(test);
    test.app.deletion.ask({ sessionId: 's1', task: TASK });
    await settle();
    buttonNamed(dialog, /^Cancel$/)!.click();
    await settle();
    expect(dialog.open).toBe(false);
    expect(test.app.deletion.asking).toBeNull();
    expect(test.requests).toEqual([]);
  });

  it('keeps page shortcuts from acting behind it', async () => {
    const test = createTestApp();
    const { dialog } = render(test);
    let heard = false;
    const onWindowKey = () => (heard = true);
    window.addEventListener('keydown', onWindowKey);
    try {
      test.app.deletion.ask({ sessionId: 's1', task: TASK });
      await settle();
      buttonNamed(dialog, /^Cancel$/)!.dispatchEvent(new KeyboardEvent('keydown', { key: 'j', bubbles: true }));
      expect(heard).toBe(false);
    } finally {
      window.removeEventListener('keydown', onWindowKey);
    }
  });

  it('speaks Chinese', async () => {
    const test = createTestApp('zh');
    const { dialog } = render(test);
    test.app.deletion.ask({ sessionId: 's1', task: '小明有12个苹果' });
    await settle();
    expect(dialog.querySelector('h2')?.textContent).toBe('为所有观看者删除此会话？');
    expect(Array.from(dialog.querySelectorAll('button')).map((button) => button.textContent?.trim())).toEqual(['取消', '删除']);
    expect(dialog.querySelector('.task')?.textContent).toContain('要删除的会话');
  });
});
