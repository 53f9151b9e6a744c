import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { problemsOf } from '../../config/support/problems.js';

const folder = mkdtempSync(join(tmpdir(), 'interthought-mcp-config-'));
let files = 0;

/** Write `content` (JSON unless a string) to a fresh file and return its path. */
function file(content: unknown): string {
  const path = join(folder, `mcp-${++files}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** The problems of INTERTHOUGHT_MCP_CONFIG naming `content`, each without the file's path in front. */
function fileProblems(content: unknown): string[] {
  const path = file(content);
  return problemsOf({ INTERTHOUGHT_MCP_CONFIG: path }).map(({ variable, problem }) => {
    expect(variable).toBe('INTERTHOUGHT_MCP_CONFIG');
    return problem.replace(`${path}: `, '');
  });
}

describe('INTERTHOUGHT_MCP_CONFIG', () => {
  it('is off by default, with a 30 s timeout for MCP requests', () => {
    expect(loadConfig({}).mcp).toBeUndefined();
    const path = file({ mcpServers: {} });
    expect(loadConfig({ INTERTHOUGHT_MCP_CONFIG: path }).mcp).toEqual({ file: path, servers: [], timeoutMs: 30_000 });
  });

  it('reads stdio and Streamable HTTP servers in the shape other MCP hosts use', () => {
    const path = file({
      mcpServers: {
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { LOG: 'debug' } },
        tracker: { type: 'stdio', command: 'tracker-mcp', cwd: 'tools' },
        search: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc' } },
        local: { url: 'http://127.0.0.1:8000/mcp' },
      },
    });
    const config = loadConfig({ INTERTHOUGHT_MCP_CONFIG: path, INTERTHOUGHT_MCP_TIMEOUT_MS: '5000' });
    expect(config.mcp).toEqual({
      file: path,
      timeoutMs: 5_000,
      servers: [
        { name: 'files', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { LOG: 'debug' }, cwd: undefined },
        { name: 'tracker', transport: 'stdio', command: 'tracker-mcp', args: [], env: {}, cwd: join(folder, 'tools') },
        { name: 'search', transport: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc' } },
        { name: 'local', transport: 'http', url: 'http://127.0.0.1:8000/mcp', headers: {} },
      ],
    });
  });

  it('resolves a relative path from the repository root', () => {
    const config = loadConfig({ INTERTHOUGHT_MCP_CONFIG: 'apps/server/test/tools/mcp/support/empty-mcp.json' });
    expect(config.mcp?.file.replaceAll('\\', '/')).toMatch(/apps\/server\/test\/tools\/mcp\/support\/empty-mcp\.json$/);
  });

  it('refuses a file it cannot read or parse, saying which', () => {
    const missing = join(folder, 'missing.json');
    expect(problemsOf({ INTERTHOUGHT_MCP_CONFIG: missing })).toEqual([{ variable: 'INTERTHOUGHT_MCP_CONFIG', problem: expect.stringMatching(/^cannot read .*missing\.json: ENOENT/) }]);
    expect(fileProblems('{ "mcpServers": ')).toEqual([expect.stringMatching(/is not JSON/)]);
    expect(fileProblems({ servers: {} })).toEqual([expect.stringContaining('"mcpServers" must be an object')]);
  });

  it('names the server and the field of every mistake', () => {
    const problems = fileProblems({
      mcpServers: {
        files: { command: 'npx', args: '-y server' },
        keys: { command: 'x', env: { TOKEN: 42 } },
        blank: { command: '  ' },
        both: { command: 'x', url: 'http://localhost/mcp' },
        neither: { args: [] },
        ftp: { url: 'ftp://example.com/mcp' },
        old: { type: 'sse', url: 'http://localhost/sse' },
        typo: { command: 'x', arg: ['--fast'] },
        list: ['x'],
      },
    });
    expect(problems).toEqual([
      'server "files": "args" must be an array of strings',
      'server "keys": "env.TOKEN" must be a string',
      'server "blank": "command" must name the program to start',
      'server "both": has both "command" and "url": give "command" (a program to start, stdio) or "url" (a Streamable HTTP endpoint)',
      'server "neither": has neither "command" nor "url": give "command" (a program to start, stdio) or "url" (a Streamable HTTP endpoint)',
      'server "ftp": "url" must be an http:// or https:// URL',
      expect.stringMatching(/^server "old": "type" is "sse", the older HTTP transport, which Interthought does not speak/),
      'server "typo": Unrecognized key: "arg"',
      'server "list": must be an object with "command" (a program to start, stdio) or "url" (a Streamable HTTP endpoint)',
    ]);
  });

  it('refuses a timeout out of range', () => {
    expect(problemsOf({ INTERTHOUGHT_MCP_TIMEOUT_MS: '0' })).toEqual([
      { variable: 'INTERTHOUGHT_MCP_TIMEOUT_MS', problem: 'must be a whole number from 50 to 3600000, got "0"' },
    ]);
  });
});
