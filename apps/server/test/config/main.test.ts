import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../support/server-process.js';

describe('main with a bad configuration or an unreachable store', () => {
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

  it('names the agents file, the path inside it and the reason, without a stack trace, and exits 1 when the file is bad', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'interthought-agents-')), 'agents.json');
    writeFileSync(file, JSON.stringify({ agents: { deepseek: { type: 'openai', baseURL: 'api.deepseek.com', apiKeyEnv: 'DEEPSEEK_API_KEY', model: 'deepseek-chat' } } }));
    server = spawnServer({ PORT: '0', INTERTHOUGHT_AGENTS_CONFIG: file });
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toBe(
      'Invalid configuration:\n' + `  INTERTHOUGHT_AGENTS_CONFIG: ${file}: agents.deepseek.baseURL: must be an http:// or https:// URL, e.g. http://localhost:11434/v1\n`,
    );
    expect(server.stdout()).toBe('');
  });

  it('names INTERTHOUGHT_APPROVE, the path inside its rules and the reason, without a stack trace, and exits 1 when its rules are bad', async () => {
    server = spawnServer({ PORT: '0', INTERTHOUGHT_APPROVE: JSON.stringify({ rules: [{ tool: 'write_file', decision: 'never' }] }) });
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toMatch(/^Invalid configuration:\n {2}INTERTHOUGHT_APPROVE: are not valid approval rules: rules\.0\.decision: .+\n$/);
    expect(server.stdout()).toBe('');
  });

  it('says where Redis was expected, without a stack trace, and exits 1 when cluster mode cannot reach it', async () => {
    server = spawnServer({ PORT: '0', INTERTHOUGHT_REDIS_URL: 'unix:///nonexistent/interthought-redis.sock', INTERTHOUGHT_NODE_ID: 'lonely' });
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toBe(
      'Redis at /nonexistent/interthought-redis.sock is unreachable: connect ENOENT /nonexistent/interthought-redis.sock. ' +
        'Start Redis there (or fix INTERTHOUGHT_REDIS_URL), or unset INTERTHOUGHT_REDIS_URL to run one server on SQLite.\n',
    );
    expect(server.stdout()).toBe('Cluster node lonely: sessions are shared through Redis at unix:///nonexistent/interthought-redis.sock\n');
  });
});
