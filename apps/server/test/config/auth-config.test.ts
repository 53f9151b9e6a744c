import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { problemsOf } from './support/problems.js';

const SECRET = 'a-shared-secret-of-more-than-32-characters';

describe('INTERTHOUGHT_AUTH', () => {
  it('is none by default, and token when only INTERTHOUGHT_TOKEN is set (as before identities)', () => {
    expect(loadConfig({})).toMatchObject({ token: undefined, identity: undefined });
    expect(loadConfig({ INTERTHOUGHT_TOKEN: 'open-sesame-42' })).toMatchObject({ token: 'open-sesame-42', identity: undefined });
    expect(loadConfig({ INTERTHOUGHT_AUTH: 'token', INTERTHOUGHT_TOKEN: 'open-sesame-42' })).toMatchObject({ token: 'open-sesame-42', identity: undefined });
  });

  it('reads jwt with a secret, issuer, audience and admin claim', () => {
    const config = loadConfig({
      INTERTHOUGHT_AUTH: 'jwt',
      INTERTHOUGHT_JWT_SECRET: SECRET,
      INTERTHOUGHT_JWT_ISSUER: ' https://id.example ',
      INTERTHOUGHT_JWT_AUDIENCE: 'interthought',
      INTERTHOUGHT_JWT_ADMIN_CLAIM: 'groups=interthought-admins',
    });
    expect(config.identity).toEqual({
      mode: 'jwt',
      jwt: { secret: SECRET, jwksUrl: undefined, issuer: 'https://id.example', audience: 'interthought', adminClaim: { claim: 'groups', value: 'interthought-admins' } },
    });
  });

  it('reads jwt with a JWKS URL; an admin claim without a value means "admin"', () => {
    const config = loadConfig({ INTERTHOUGHT_AUTH: 'JWT', INTERTHOUGHT_JWKS_URL: 'https://id.example/.well-known/jwks.json', INTERTHOUGHT_JWT_ADMIN_CLAIM: 'roles' });
    expect(config.identity).toMatchObject({ mode: 'jwt', jwt: { secret: undefined, jwksUrl: 'https://id.example/.well-known/jwks.json', adminClaim: { claim: 'roles', value: 'admin' } } });
    expect(loadConfig({ INTERTHOUGHT_AUTH: 'jwt', INTERTHOUGHT_JWKS_URL: 'http://127.0.0.1:8080/jwks' }).identity).toMatchObject({ mode: 'jwt' });
  });

  it('reads proxy with its headers and trusted addresses', () => {
    const config = loadConfig({
      INTERTHOUGHT_AUTH: 'proxy',
      INTERTHOUGHT_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7,fd00::/8',
      INTERTHOUGHT_PROXY_USER_HEADER: 'X-Auth-Request-User',
      INTERTHOUGHT_PROXY_ADMINS: ' Root, grace@example.com ,',
    });
    expect(config.identity).toEqual({
      mode: 'proxy',
      proxy: { userHeader: 'x-auth-request-user', emailHeader: 'x-forwarded-email', trustedProxies: ['10.0.0.0/8', '192.0.2.7', 'fd00::/8'], admins: ['root', 'grace@example.com'] },
    });
  });

  it('refuses an unknown mode', () => {
    expect(problemsOf({ INTERTHOUGHT_AUTH: 'oauth' })).toEqual([{ variable: 'INTERTHOUGHT_AUTH', problem: 'must be one of none, token, jwt, proxy, got "oauth"' }]);
  });

  it('refuses jwt without a way to check signatures, or with two', () => {
    const [none] = problemsOf({ INTERTHOUGHT_AUTH: 'jwt' });
    expect(none?.variable).toBe('INTERTHOUGHT_AUTH');
    expect(none?.problem).toMatch(/neither is set.*INTERTHOUGHT_JWT_SECRET.*INTERTHOUGHT_JWKS_URL/);
    const [both] = problemsOf({ INTERTHOUGHT_AUTH: 'jwt', INTERTHOUGHT_JWT_SECRET: SECRET, INTERTHOUGHT_JWKS_URL: 'https://id.example/jwks' });
    expect(both?.problem).toMatch(/both are set/);
  });

  it('refuses a short secret without showing it, and a JWKS over plain http to another host', () => {
    const [short] = problemsOf({ INTERTHOUGHT_AUTH: 'jwt', INTERTHOUGHT_JWT_SECRET: 'short-secret' });
    expect(short).toMatchObject({ variable: 'INTERTHOUGHT_JWT_SECRET' });
    expect(short?.problem).toMatch(/at least 32 characters/);
    expect(short?.problem).not.toContain('short-secret');
    expect(problemsOf({ INTERTHOUGHT_AUTH: 'jwt', INTERTHOUGHT_JWKS_URL: 'http://id.example/jwks' })[0]).toMatchObject({ variable: 'INTERTHOUGHT_JWKS_URL' });
  });

  it('refuses a bad admin claim, header name or proxy address', () => {
    expect(problemsOf({ INTERTHOUGHT_AUTH: 'jwt', INTERTHOUGHT_JWT_SECRET: SECRET, INTERTHOUGHT_JWT_ADMIN_CLAIM: 'roles=a b' })[0]).toMatchObject({ variable: 'INTERTHOUGHT_JWT_ADMIN_CLAIM' });
    expect(problemsOf({ INTERTHOUGHT_AUTH: 'proxy', INTERTHOUGHT_TRUSTED_PROXIES: '127.0.0.1', INTERTHOUGHT_PROXY_USER_HEADER: 'X User' })[0]).toMatchObject({ variable: 'INTERTHOUGHT_PROXY_USER_HEADER' });
    for (const bad of ['10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/2', 'fd00::/129']) {
      expect(problemsOf({ INTERTHOUGHT_AUTH: 'proxy', INTERTHOUGHT_TRUSTED_PROXIES: bad })[0], bad).toMatchObject({ variable: 'INTERTHOUGHT_TRUSTED_PROXIES' });
    }
  });

  it('refuses proxy without trusted proxies', () => {
    const [problem] = problemsOf({ INTERTHOUGHT_AUTH: 'proxy' });
    expect(problem).toMatchObject({ variable: 'INTERTHOUGHT_TRUSTED_PROXIES' });
    expect(problem?.problem).toMatch(/nobody could sign in/);
  });

  it('refuses variables of another mode rather than ignore them', () => {
    expect(problemsOf({ INTERTHOUGHT_JWT_SECRET: SECRET })).toEqual([
      { variable: 'INTERTHOUGHT_JWT_SECRET', problem: expect.stringMatching(/INTERTHOUGHT_AUTH is none: set INTERTHOUGHT_AUTH=jwt/) },
    ]);
    expect(problemsOf({ INTERTHOUGHT_AUTH: 'jwt', INTERTHOUGHT_JWT_SECRET: SECRET, INTERTHOUGHT_TOKEN: 'open-sesame-42' })[0]).toMatchObject({ variable: 'INTERTHOUGHT_TOKEN' });
    expect(problemsOf({ INTERTHOUGHT_AUTH: 'none', INTERTHOUGHT_TOKEN: 'open-sesame-42' })[0]).toMatchObject({ variable: 'INTERTHOUGHT_TOKEN' });
    expect(problemsOf({ INTERTHOUGHT_AUTH: 'token' })[0]).toMatchObject({ variable: 'INTERTHOUGHT_AUTH' });
    expect(problemsOf({ INTERTHOUGHT_AUTH: 'jwt', INTERTHOUGHT_JWT_SECRET: SECRET, INTERTHOUGHT_TRUSTED_PROXIES: '127.0.0.1' })[0]).toMatchObject({ variable: 'INTERTHOUGHT_TRUSTED_PROXIES' });
  });
});
