import { describe, expect, it } from 'vitest';
import { signInSummary } from '../../src/auth/sign-in-summary.js';
import { loadConfig } from '../../src/config/index.js';

const SECRET = 'a-shared-secret-of-more-than-32-characters';

describe('the sign-in line printed at start', () => {
  it('names the mode and how tokens are checked, never a secret', () => {
    expect(signInSummary(loadConfig({}))).toBeUndefined();
    expect(signInSummary(loadConfig({ INTERTHOUGHT_TOKEN: 'correct-horse-battery' }))).toBe('Sign-in: the shared token (INTERTHOUGHT_TOKEN).');
    const hs = signInSummary(loadConfig({ INTERTHOUGHT_AUTH: 'jwt', INTERTHOUGHT_JWT_SECRET: SECRET }));
    expect(hs).toBe('Sign-in: JWT bearer tokens, checked with an HS256 shared secret.');
    expect(hs).not.toContain(SECRET);
    expect(signInSummary(loadConfig({ INTERTHOUGHT_AUTH: 'jwt', INTERTHOUGHT_JWKS_URL: 'https://id.example.com/.well-known/jwks.json' }))).toBe(
      'Sign-in: JWT bearer tokens, checked with keys from id.example.com.',
    );
    expect(signInSummary(loadConfig({ INTERTHOUGHT_AUTH: 'proxy', INTERTHOUGHT_TRUSTED_PROXIES: '10.0.0.0/8' }))).toBe(
      'Sign-in: the user named by the x-forwarded-user header, from trusted proxies only.',
    );
  });
});
