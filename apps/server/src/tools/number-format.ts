/** Significant digits kept from a floating-point result: enough for any everyday answer, few enough to drop binary noise. */
const SIGNIFICANT_DIGITS = 12;

/**
 * Remove binary floating-point noise: 0.1 + 0.2 → 0.3, 1/3 → 0.333333333333. Integers are
 * left exact (2^60 keeps every digit a double has), and -0 becomes 0.
 */
export function roundResult(value: number): number {
  if (Object.is(value, -0)) return 0;
  if (Number.isInteger(value) || !Number.isFinite(value)) return value;
  const rounded = Number(value.toPrecision(SIGNIFICANT_DIGITS));
  return Object.is(rounded, -0) ? 0 : rounded;
}

/** A number as people read it: no exponent for ordinary sizes, no trailing zeros. */
export function formatNumber(value: number): string {
  return String(roundResult(value));
}
