import { afterEach, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../support/server-process.js';

describe('main with a bad configuration', () => {
  let server: ServerProcess | undefined;
  afterEach(() => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('prints which variable is wrong, without a stack trace, and exits 1', async () => {
    server = spawnServer({ PORT: 'eighty', LOG_LEVEL: 'chatty' });
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toBe(
      'Invalid configuration:\n' +
        '  PORT: must be a whole number from 0 to 65535, got "eighty"\n' +
        '  LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got "chatty"\n',
    );
    expect(server.stdout()).toBe('');
  });
});
