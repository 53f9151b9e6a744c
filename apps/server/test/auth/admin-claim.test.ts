import { describe, expect, it } from 'vitest';
import { isAdminByClaim } from '../../src/auth/admin-claim.js';

describe('isAdminByClaim', () => {
  it('makes nobody an admin without a rule', () => {
    expect(isAdminByClaim({ roles: ['admin'], is_admin: true }, undefined)).toBe(false);
  });

  it('reads a list, a string or a boolean claim against the value', () => {
    const rule = { claim: 'groups', value: 'interthought-admins' };
    expect(isAdminByClaim({ groups: ['staff', 'interthought-admins'] }, rule)).toBe(true);
    expect(isAdminByClaim({ groups: 'interthought-admins' }, rule)).toBe(true);
    expect(isAdminByClaim({ groups: true }, rule)).toBe(true);
    expect(isAdminByClaim({ groups: ['staff'] }, rule)).toBe(false);
    expect(isAdminByClaim({ groups: 'true' }, rule)).toBe(false);
    expect(isAdminByClaim({ groups: 1 }, rule)).toBe(false);
    expect(isAdminByClaim({}, rule)).toBe(false);
  });

  it('takes namespaced claim names as they are', () => {
    expect(isAdminByClaim({ 'https://example.com/roles': ['admin'] }, { claim: 'https://example.com/roles', value: 'admin' })).toBe(true);
  });
});
