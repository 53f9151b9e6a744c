import { afterEach, describe, expect, it } from 'vitest';
import StatusBadge from '$lib/session-page/StatusBadge.svelte';
import { createTestApp, mountWithApp } from '../../support/app.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

function badgeText(props: { status: 'waiting' | 'running'; decides?: boolean }, locale: 'en' | 'zh' = 'en'): string {
  const mounted = mountWithApp(StatusBadge, props, createTestApp(locale));
  cleanup = mounted.destroy;
  return mounted.target.textContent?.trim() ?? '';
}

describe('StatusBadge', () => {
  it('tells whoever may decide that the session waits for them', () => {
    expect(badgeText({ status: 'waiting' })).toBe('Waiting for you');
  });

  it('tells a viewer (who may not decide) only that the session waits for a decision', () => {
    expect(badgeText({ status: 'waiting', decides: false })).toBe('Waiting for a decision');
    cleanup?.();
    expect(badgeText({ status: 'waiting', decides: false }, 'zh')).toBe('等待决定');
    cleanup?.();
    expect(badgeText({ status: 'running', decides: false })).toBe('Running');
  });
});
