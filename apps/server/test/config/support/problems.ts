import { ConfigError, loadConfig } from '../../../src/config/index.js';

/** What `loadConfig` refuses in `env`: one problem per variable (fails the test if it accepts the environment). */
export function problemsOf(env: Record<string, string>): { variable: string; problem: string }[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
