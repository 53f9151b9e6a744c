import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config/index.js';

/** A folder that holds no web build, so tests see the "not built" page unless they pass their own. */
const NO_WEB_BUILD = join(mkdtempSync(join(tmpdir(), 'interthought-noweb-')), 'build');

/** The defaults, bound to a free port, with unpaced agents and a silent logger. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    host: '127.0.0.1',
    port: 0,
    tokenDelayMs: 0,
    webDir: NO_WEB_BUILD,
    logLevel: 'silent',
    ...overrides,
  };
}
