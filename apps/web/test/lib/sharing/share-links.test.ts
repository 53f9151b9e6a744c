import { describe, expect, it } from 'vitest';
import { SHARE_STORAGE_KEY, ShareScope, ShareTokenStore, sessionIdOfPath, takeShareFromAddress } from '$lib/sharing/index.js';
import { MemoryStorage } from '../../support/memory-storage.js';

function recordingHistory() {
  const urls: Array<string | URL | null | undefined> = [];
  return { urls, state: { kept: true }, replaceState: (_state: unknown, _unused: string, url?: string | URL | null) => void urls.push(url) };
}

describe('sessionIdOfPath', () => {
  it('reads the session id of a session page, decoded, and nothing from any other page', () => {
    expect(sessionIdOfPath('/sessions/abc')).toBe('abc');
    expect(sessionIdOfPath('/sessions/a%20b/')).toBe('a b');
    expect(sessionIdOfPath('/')).toBeUndefined();
    expect(sessionIdOfPath('/sessions/')).toBeUndefined();
    expect(sessionIdOfPath('/sessions/a/b')).toBeUndefined();
  });
});

describe('takeShareFromAddress', () => {
  it('keeps a session page’s ?share= for the tab under that session and drops it from the address', () => {
    const storage = new MemoryStorage();
    const history = recordingHistory();
    takeShareFromAddress({ href: 'http://h/sessions/s1?share=tok.en-1&lang=zh#step-3' }, history, new ShareTokenStore(storage));
    expect(history.urls).toEqual(['/sessions/s1?lang=zh#step-3']);
    expect(new ShareTokenStore(storage).tokenFor('s1')).toBe('tok.en-1');
    expect(JSON.parse(storage.getItem(SHARE_STORAGE_KEY)!)).toEqual({ s1: 'tok.en-1' });
  });

  it('leaves an address without a share alone, and drops a share from any other page without keeping it', () => {
    const storage = new MemoryStorage();
    const history = recordingHistory();
    takeShareFromAddress({ href: 'http://h/sessions/s1?lang=zh' }, history, new ShareTokenStore(storage));
    expect(history.urls).toEqual([]);
    takeShareFromAddress({ href: 'http://h/?share=stray' }, history, new ShareTokenStore(storage));
    expect(history.urls).toEqual(['/']);
    expect(storage.getItem(SHARE_STORAGE_KEY)).toBeNull();
  });
});

describe('ShareTokenStore', () => {
  it('survives a reload through session storage, forgets one link at a time, and ignores what it cannot read', () => {
    const storage = new MemoryStorage();
    const tokens = new ShareTokenStore(storage);
    tokens.set('s1', 'one');
    tokens.set('s2', 'two');
    tokens.forget('s1');
    const reloaded = new ShareTokenStore(storage);
    expect(reloaded.tokenFor('s1')).toBeUndefined();
    expect(reloaded.tokenFor('s2')).toBe('two');

    storage.setItem(SHARE_STORAGE_KEY, 'not json');
    expect(new ShareTokenStore(storage).tokenFor('s2')).toBeUndefined();
    expect(new ShareTokenStore(null).tokenFor('s2')).toBeUndefined();
  });
});

describe('ShareScope', () => {
  it('presents a link on its session’s page only, and tells when the page changes', () => {
    const tokens = new ShareTokenStore(new MemoryStorage());
    tokens.set('s1', 'tok-1');
    let path = '/sessions/s1';
    let changes = 0;
    const scope = new ShareScope(tokens, () => path);
    scope.onChange(() => changes++);
    expect(scope.presented).toEqual({ sessionId: 's1', token: 'tok-1' });
    expect(scope.holds('s1')).toBe(true);

    path = '/';
    scope.routeChanged();
    expect(scope.token()).toBeUndefined();
    expect(changes).toBe(1);
    path = '/sessions/s2';
    expect(scope.token()).toBeUndefined();

    path = '/sessions/s1';
    scope.forgetPresented();
    expect(scope.token()).toBeUndefined();
    expect(scope.holds('s1')).toBe(false);
  });
});
