/** One bad environment variable: its name, and what is wrong with it, for humans. */
export interface ConfigProblem {
  variable: string;
  problem: string;
}

/**
 * Bad environment variables. The message names each and says what is wrong. Each concern throws
 * its own subclass (`AuthConfigError`, `LimitsConfigError` …); `loadConfig` reports the problems
 * of every concern at once in one `ConfigError`.
 */
export class ConfigError extends Error {
  override readonly name: string = 'ConfigError';
  constructor(readonly problems: ConfigProblem[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.problem}`).join('\n')}`);
  }
}
