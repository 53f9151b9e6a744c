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
});
