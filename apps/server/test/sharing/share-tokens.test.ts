import { describe, expect, it } from 'vitest';
import { ShareTokens } from '../../src/sharing/share-tokens.js';

const KEY = 'a-share-key-of-at-least-32-characters!!';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

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

  it('refuses every spelling of its signature but the one it wrote, though they decode to the same bytes', () => {
    const token = tokens.sign(grant);
    const [payload, signature] = token.split('.') as [string, string];
    // 32 bytes in 43 characters: the last one's low 2 bits are padding, so flipping its lowest bit keeps the bytes.
    const last = BASE64URL.indexOf(signature.at(-1)!);
    const twin = `${signature.slice(0, -1)}${BASE64URL[last ^ 1]}`;
    const respellings = [twin, `${signature}=`, `${signature.slice(0, 20)}\n${signature.slice(20)}`, `${signature.slice(0, 20)}!${signature.slice(20)}`];
    for (const respelled of respellings) {
      expect(Buffer.from(respelled, 'base64url'), respelled).toEqual(Buffer.from(signature, 'base64url'));
      expect(tokens.read(`${payload}.${respelled}`), respelled).toBeUndefined();
    }
    expect(tokens.read(`${payload}.${signature}`)).toEqual(grant);
  });

  it('refuses what is not a token at all, without throwing', () => {
    for (const junk of ['', '.', 'abc', 'a.b.c', `${'x'.repeat(2_000)}.y`, '%%%.###', tokens.sign(grant).slice(0, -3)]) {
      expect(tokens.read(junk)).toBeUndefined();
    }
  });
});
