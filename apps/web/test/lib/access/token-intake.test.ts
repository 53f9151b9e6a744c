import { describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY, TokenStore, splitToken, takeTokenFromAddress } from '$lib/access/index.js';
import { MemoryStorage } from '../../support/memory-storage.js';

/** A history that records what the address became. */
function recordingHistory(state: unknown = { kept: true }) {
  const calls: Array<{ state: unknown; url: string | URL | null | undefined }> = [];
  return {
    calls,
    state,
    replaceState(next: unknown, _unused: string, url?: string | URL | null) {
      calls.push({ state: next, url });
    },
  };
}

describe('splitToken', () => {
  it('finds no token in an address without one', () => {
    expect(splitToken('http://127.0.0.1:3000/sessions/abc?lang=zh#step-2')).toBeNull();
    expect(splitToken('http://127.0.0.1:3000/?tokens=1&mytoken=2')).toBeNull();
  });

  it('takes the token and keeps the path, the other parameters byte for byte, and the hash', () => {
    expect(splitToken('http://127.0.0.1:3000/sessions/abc?a=b%20c&token=s3cret-t0ken&x=1+2#step-2')).toEqual({
      token: 's3cret-t0ken',
      rest: '/sessions/abc?a=b%20c&x=1+2#step-2',
    });
  });

  it('leaves no bare question mark when the token was the only parameter', () => {
    expect(splitToken('http://127.0.0.1:3000/?token=abc')).toEqual({ token: 'abc', rest: '/' });
  });

  it('decodes an encoded token, as the server does', () => {
    expect(splitToken('http://h/?token=%E5%AF%86%E7%A0%81%26%3D%2B')?.token).toBe('密码&=+');
  });

  it('removes every token parameter and keeps the last, and an empty one is no token', () => {
    expect(splitToken('http://h/x?token=first&y=2&token=second')).toEqual({ token: 'second', rest: '/x?y=2' });
    expect(splitToken('http://h/x?token=&y=2')).toEqual({ token: undefined, rest: '/x?y=2' });
  });
});

describe('takeTokenFromAddress', () => {
  it('keeps the token for the tab and replaces the address with the same one without it', () => {
    const storage = new MemoryStorage();
    const history = recordingHistory();
    takeTokenFromAddress({ href: 'http://127.0.0.1:3000/sessions/abc?token=s3cret-t0ken&lang=zh#top' }, history, new TokenStore(storage));
    expect(storage.values.get(TOKEN_STORAGE_KEY)).toBe('s3cret-t0ken');
    expect(history.calls).toEqual([{ state: { kept: true }, url: '/sessions/abc?lang=zh#top' }]);
    // A later page of the same tab (a reload) reads it back.
    expect(new TokenStore(storage).token).toBe('s3cret-t0ken');
  });

  it('touches neither storage nor history when the address has no token', () => {
    const storage = new MemoryStorage();
    storage.setItem(TOKEN_STORAGE_KEY, 'from-before');
    const history = recordingHistory();
    takeTokenFromAddress({ href: 'http://127.0.0.1:3000/?lang=zh' }, history, new TokenStore(storage));
    expect(history.calls).toEqual([]);
    expect(new TokenStore(storage).token).toBe('from-before');
  });

  it('replaces a token kept from before with the one in the address', () => {
    const storage = new MemoryStorage();
    storage.setItem(TOKEN_STORAGE_KEY, 'old-token');
    takeTokenFromAddress({ href: 'http://h/?token=new-token' }, recordingHistory(), new TokenStore(storage));
    expect(new TokenStore(storage).token).toBe('new-token');
  });

  it('drops the token from this page’s real address bar (happy-dom window)', () => {
    const start = new URL('/sessions/s1?token=s3cret-t0ken&view=full#end', window.location.href).href;
    window.history.replaceState(null, '', start);
    takeTokenFromAddress(window.location, window.history, new TokenStore(window.sessionStorage));
    expect(window.location.pathname + window.location.search + window.location.hash).toBe('/sessions/s1?view=full#end');
    expect(window.sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe('s3cret-t0ken');
    window.sessionStorage.removeItem(TOKEN_STORAGE_KEY);
  });
});

describe('TokenStore', () => {
  it('keeps a token in memory when the browser refuses storage', () => {
    const refusing = {
      getItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      setItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      removeItem: () => undefined,
    };
    const store = new TokenStore(refusing);
    expect(store.token).toBeUndefined();
    store.set('pasted-token');
    expect(store.token).toBe('pasted-token');
  });
});
