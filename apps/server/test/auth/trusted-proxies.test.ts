import { describe, expect, it } from 'vitest';
import { TrustedProxies } from '../../src/auth/trusted-proxies.js';

describe('TrustedProxies', () => {
  const trusted = new TrustedProxies(['10.1.0.0/16', '192.0.2.7', 'fd00::/8', '::1']);

  it('holds single addresses and CIDR ranges of both families', () => {
    for (const address of ['10.1.2.3', '192.0.2.7', 'fd12::1', '::1']) expect(trusted.includes(address), address).toBe(true);
    for (const address of ['10.2.0.1', '192.0.2.8', 'fe80::1', '127.0.0.1']) expect(trusted.includes(address), address).toBe(false);
  });

  it('sees an IPv4-mapped IPv6 peer as its IPv4 address', () => {
    expect(trusted.includes('::ffff:10.1.9.9')).toBe(true);
    expect(new TrustedProxies(['::ffff:127.0.0.1']).includes('127.0.0.1')).toBe(true);
  });

  it('trusts no missing or malformed address', () => {
    expect(trusted.includes(undefined)).toBe(false);
    expect(trusted.includes('not-an-ip')).toBe(false);
  });
});
