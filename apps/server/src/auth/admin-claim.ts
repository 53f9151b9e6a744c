import type { JWTPayload } from 'jose';

/**
 * INTERTHOUGHT_JWT_ADMIN_CLAIM's rule. The claim names a top-level claim (namespaced names such as
 * `https://example.com/roles` work); the user is an admin when it is `true`, equals `value`, or is
 * a list containing `value`. `value` defaults to `admin`, so `roles` means "roles contains admin"
 * and a boolean `is_admin` claim needs nothing more. Anything else (a missing claim, `"true"` as
 * a string, a number) is not admin.
 */
export function isAdminByClaim(payload: JWTPayload, rule: { claim: string; value: string } | undefined): boolean {
  if (rule === undefined) return false;
  const claimed = payload[rule.claim];
  if (claimed === true) return true;
  if (typeof claimed === 'string') return claimed === rule.value;
  return Array.isArray(claimed) && claimed.includes(rule.value);
}
