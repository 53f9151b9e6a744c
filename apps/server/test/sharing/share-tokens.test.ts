import { describe, expect, it } from 'vitest';
import { ShareTokens } from '../../src/sharing/share-tokens.js';

const KEY = 'a-share-key-of-at-least-32-characters!!';

describe('ShareTokens', () => {
  const tokens = new ShareTokens(KEY);
  const grant = { sessionId: 's_1', shareId: 'sh_1', role: 'viewer' as const, expiresAt: '2026-12-02T08:00:00.000Z' };

  it('reads back exactly what it signed', () => {
    expect(tokens.read(tokens.sign(grant))).toEqual(grant);
    const { expiresAt: _never, ...forever } = grant;
    expect(tokens.read(tokens.sign(forever))).toEqual(forever);
  });

  it('refuses a token signed with another key, or whose payload was changed', () => {
    const token = tokens.sign(grant);
    expect(new ShareTokens('another-key-of-at-least-32-characters!!').read(token)).toBeUndefined();
    const [, signature] = token.split('.');
    const promoted = Buffer.from(JSON.stringify({ s: 's_1', i: 'sh_1', r: 'editor' })).toString('base64url');
    expect(tokens.read(`${promoted}.${signature}`)).toBeUndefined();
  });

  it('refuses what is not a token at all, without throwing', () => {
    for (const junk of ['', '.', 'abc', 'a.b.c', `${'x'.repeat(2_000)}.y`, '%%%.###', tokens.sign(grant).slice(0, -3)]) {
      expect(tokens.read(junk)).toBeUndefined();
    }
  });
});
