/**
 * Whose budget a request spends (PROTOCOL.md §16.3, §21.2): a client's address, or a signed-in
 * user (behind a proxy or a company NAT, many users share one address, so users are counted as
 * themselves). The quota carries its own caps, so the core needs no table of who gets how much.
 */
export interface Quota {
  /** What the budget is kept under: the address key, or `user:<id>`. */
  key: string;
  /** Running or paused sessions it may hold at once. */
  maxActiveSessions: number;
  /** Agent runs it may start per minute. */
  runStartsPerMinute: number;
  /** How refusals name it, e.g. "your address", "your account". */
  whose: string;
}
