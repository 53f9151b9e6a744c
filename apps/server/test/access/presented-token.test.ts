import { describe, expect, it } from 'vitest';
import { redactUrl, tokenMatches } from '../../src/access/presented-token.js';

describe('tokens', () => {
  it('matches only the exact token', () => {
    expect(tokenMatches('s3cret-token', 's3cret-token')).toBe(true);
    expect(tokenMatches('s3cret-toke', 's3cret-token')).toBe(false);
    expect(tokenMatches(undefined, 's3cret-token')).toBe(false);
  });

  it('redacts the token from a URL', () => {
    expect(redactUrl('/ws?token=s3cret&x=1')).toBe('/ws?token=[redacted]&x=1');
    expect(redactUrl('/api/sessions?limit=2&TOKEN=s3cret')).toBe('/api/sessions?limit=2&TOKEN=[redacted]');
    expect(redactUrl('/api/agents')).toBe('/api/agents');
  });
});
