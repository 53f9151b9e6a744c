import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import type { McpConfig } from '../../../../src/config/index.js';
import type { McpLog } from '../../../../src/tools/mcp/mcp-connection.js';
import type { McpServerConfig } from '../../../../src/tools/mcp/mcp-config-file.js';
import type { McpTools } from '../../../../src/tools/mcp/index.js';
import type { HttpMcpTestServer } from './http-test-server.js';

const STDIO_SERVER = fileURLToPath(new URL('./stdio-test-server.ts', import.meta.url));
/** tsx as a loader of one node process (the tsx CLI would put a second process between us and the server). */
const TSX_LOADER = new URL('../../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

/** The stdio test server, run with tsx as its own process. */
export function stdioServer(name = 'notes'): McpServerConfig {
  return { name, transport: 'stdio', command: process.execPath, args: ['--import', TSX_LOADER, STDIO_SERVER], env: {}, cwd: undefined };
}

export function httpServer(url: string, name = 'weather'): McpServerConfig {
  return { name, transport: 'http', url, headers: {} };
}

export function mcpConfig(servers: McpServerConfig[], timeoutMs = 10_000): McpConfig {
  return { file: '/test/mcp.json', servers, timeoutMs };
}

/** A log that keeps its lines (the message of each). */
export class RecordingLog implements McpLog {
  readonly lines: Array<{ level: 'info' | 'warn'; message: string }> = [];

  info(_fields: object, message: string): void {
    this.lines.push({ level: 'info', message });
  }

  warn(_fields: object, message: string): void {
    this.lines.push({ level: 'warn', message });
  }

  messages(level: 'info' | 'warn'): string[] {
    return this.lines.filter((line) => line.level === level).map((line) => line.message);
  }
}

/** A loopback port nothing listens on (one just given back by the system). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The MCP tests' polling wait (one definition for the server's tests). */
export { eventually } from '../../../support/eventually.js';

/** The tools the two test servers (stdio `notes`, HTTP `weather`) register, in the registry's order. */
export const TEST_SERVERS_TOOL_NAMES = [
  'mcp__notes__echo',
  'mcp__notes__add',
  'mcp__notes__write_note',
  'mcp__notes__fail',
  'mcp__notes__wait',
  'mcp__notes__stats',
  'mcp__notes__crash',
  'mcp__weather__lookup',
  'mcp__weather__book',
  'mcp__weather__ping_now',
];

/** What a test opens: its MCP tools and its HTTP test server, each closed after the test. */
export interface OpenedPerTest {
  mcp?: McpTools;
  http?: HttpMcpTestServer;
}

/** A holder for what each test of the file opens; whatever a test put in it is closed after it. */
export function closedAfterEachTest(): OpenedPerTest {
  const opened: OpenedPerTest = {};
  afterEach(async () => {
    await opened.mcp?.close();
    await opened.http?.stop();
    delete opened.mcp;
    delete opened.http;
  });
  return opened;
}
