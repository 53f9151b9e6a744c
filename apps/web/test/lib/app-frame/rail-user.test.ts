import { afterEach, describe, expect, it } from 'vitest';
import RailUser from '$lib/app-frame/RailUser.svelte';
import { createTestApp, mountWithApp } from '../../support/app.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe('RailUser', () => {
  it('shows the signed-in user’s name and an admin badge, with a sign-out link to the login page that drops the token', () => {
    const test = createTestApp();
    const { tokens } = test;
    tokens.set('jwt-ada');
    const mounted = mountWithApp(RailUser, { user: { id: 'u-ada', name: 'Ada Lovelace', admin: true }, loginUrl: 'https://sso.example/login' }, test);
    cleanup = mounted.destroy;
    const box = mounted.target.querySelector<HTMLElement>('[data-testid="rail-user"]')!;
    expect(box.getAttribute('aria-label')).toBe('Signed in as Ada Lovelace');
    expect(box.querySelector('.avatar')?.textContent).toBe('A');
    expect(box.querySelector('.admin')?.textContent).toBe('admin');
    const signOut = box.querySelector<HTMLAnchorElement>('[data-action="sign-out"]')!;
    expect(signOut.getAttribute('href')).toBe('https://sso.example/login');
    expect(signOut.getAttribute('aria-label')).toBe('Sign out of Ada Lovelace');
    // Navigating away is the browser's job: only the click's own effect is checked here.
    signOut.addEventListener('click', (event) => event.preventDefault());
    signOut.click();
    expect(tokens.token).toBeUndefined();
    // The socket is closed too: it must not try again without the token while the page goes.
    expect(test.app.client.state).toBe('closed');
  });

  it('offers no sign-out without a login page, and no badge for a user who is not an admin, in Chinese', () => {
    const test = createTestApp('zh');
    const mounted = mountWithApp(RailUser, { user: { id: 'u-li', name: '李雷' } }, test);
    cleanup = mounted.destroy;
    expect(mounted.target.querySelector('[data-testid="rail-user"]')?.getAttribute('aria-label')).toBe('已登录：李雷');
    expect(mounted.target.querySelector('.avatar')?.textContent).toBe('李');
    expect(mounted.target.querySelector('.admin')).toBeNull();
    expect(mounted.target.querySelector('[data-action="sign-out"]')).toBeNull();
  });
});
