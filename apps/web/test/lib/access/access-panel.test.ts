import type { Me } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import AccessPanel from '$lib/access/AccessPanel.svelte';
import { buttonNamed, createTestApp, mountWithApp, settle } from '../../support/app.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

function render(problem: 'missing' | 'refused', locale: 'en' | 'zh' = 'en', me?: Me) {
  const submitted: string[] = [];
  const gate = {
    checking: false,
    submit: async (token: string) => {
      submitted.push(token);
    },
  };
  const mounted = mountWithApp(AccessPanel, { gate, problem, me }, createTestApp(locale));
  cleanup = mounted.destroy;
  return { target: mounted.target, submitted };
}

describe('AccessPanel', () => {
  it('explains that the server needs a token and where to get it', () => {
    const { target } = render('missing');
    expect(target.querySelector('h1')?.textContent).toBe('This server needs an access token');
    expect(target.textContent).toContain('Open the link with ?token=… that the server’s operator gave you, or paste the token here.');
    expect(target.textContent).toContain('INTERTHOUGHT_TOKEN');
  });

  it('says a token was refused, in Chinese too', () => {
    const { target } = render('refused', 'zh');
    expect(target.querySelector('h1')?.textContent).toBe('服务器拒绝了这个访问令牌');
    expect(target.querySelector('label')?.textContent).toBe('访问令牌');
    expect(buttonNamed(target, /^连接$/)).toBeDefined();
  });

  it('takes a pasted token in a password field (never shown) and hands it to the gate', async () => {
    const { target, submitted } = render('missing');
    const field = target.querySelector<HTMLInputElement>('input#access-token')!;
    expect(field.type).toBe('password');
    expect(document.activeElement).toBe(field);
    const connect = buttonNamed(target, /^Connect$/)!;
    expect(connect.disabled).toBe(true);
    field.value = 's3cret-t0ken';
    field.dispatchEvent(new Event('input', { bubbles: true }));
    await settle();
    expect(connect.disabled).toBe(false);
    connect.click();
    await settle();
    expect(submitted).toEqual(['s3cret-t0ken']);
  });

  it('explains a JWT sign-in: the mode, the server’s reason, the login page, and a pasted token', () => {
    const { target } = render('missing', 'en', { auth: 'jwt', signedIn: false, reason: 'no token was presented', loginUrl: 'https://sso.example/login' });
    expect(target.querySelector('h1')?.textContent).toBe('Sign in to use Interthought');
    expect(target.textContent).toContain('with a token (a JWT)');
    expect(target.querySelector('[data-access-reason]')?.textContent).toBe('The server says: no token was presented');
    const login = target.querySelector<HTMLAnchorElement>('a[data-action="login"]')!;
    expect(login.textContent?.trim()).toBe('Sign in');
    expect(login.getAttribute('href')).toBe('https://sso.example/login');
    expect(target.querySelector('label')?.textContent).toBe('Or paste a sign-in token');
    expect(target.textContent).not.toContain('INTERTHOUGHT_TOKEN');
  });

  it('asks for no token behind a sign-in proxy, in Chinese too', () => {
    const { target } = render('refused', 'zh', { auth: 'proxy', signedIn: false, reason: 'no user header from a trusted proxy' });
    expect(target.querySelector('h1')?.textContent).toBe('你的登录未被接受');
    expect(target.textContent).toContain('此服务器通过其前面的登录代理识别用户。');
    expect(target.textContent).toContain('服务器的说明：no user header from a trusted proxy');
    expect(target.querySelector('input')).toBeNull();
    expect(target.querySelector('a[data-action="login"]')).toBeNull();
  });
});
