import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolListSchema, ToolListingSchema, type ToolListing } from '@interthought/protocol';
import { logSink } from '../../support/log-sink.js';
import { buildTestApp } from '../../support/server.js';
import { HTTP_TOOLS, HttpMcpTestServer } from './support/http-test-server.js';
import { TEST_SERVERS_TOOL_NAMES, httpServer, mcpConfig, stdioServer } from './support/mcp-test-config.js';

// The real app with INTERTHOUGHT_MCP_CONFIG's servers: one over stdio, one over Streamable HTTP and
// one that cannot start.
let http: HttpMcpTestServer;
let app: FastifyInstance;
const log = logSink();

beforeAll(async () => {
  http = await HttpMcpTestServer.start();
  const broken = { name: 'broken', transport: 'stdio' as const, command: 'interthought-no-such-mcp-server', args: [], env: {}, cwd: undefined };
  app = await buildTestApp(
    { mcp: mcpConfig([stdioServer('notes'), httpServer(http.url, 'weather'), broken]), logLevel: 'info' },
    { logger: { stream: log.stream } },
  );
});
afterAll(async () => {
  await app?.close();
  await http?.stop();
});

async function listed(): Promise<ToolListing[]> {
  const response = await app.inject('/api/tools');
  expect(response.statusCode).toBe(200);
  const body: unknown = response.json();
  expect(ToolListSchema.safeParse(body).error?.issues ?? []).toEqual([]);
  return ToolListSchema.parse(body).tools;
}

describe('GET /api/tools', () => {
  it('lists the built-in tools, then those of every MCP server that started', async () => {
    const tools = await listed();
    expect(tools.map((tool) => tool.name)).toEqual([
      'calculator',
      'unit_converter',
      'date_calculator',
      'ask_user',
      ...TEST_SERVERS_TOOL_NAMES,
    ]);
    for (const tool of tools) expect(Object.keys(tool).filter((key) => !(key in ToolListingSchema.shape))).toEqual([]);
  });

  it('says where each tool comes from, whether it only reads, and its input as JSON Schema', async () => {
    const byName = new Map((await listed()).map((tool) => [tool.name, tool]));
    expect(byName.get('calculator')).toEqual({
      name: 'calculator',
      description: expect.stringContaining('arithmetic'),
      source: 'builtin',
      readOnly: true,
      inputSchema: expect.objectContaining({ type: 'object', properties: { expression: expect.objectContaining({ type: 'string' }) } }),
    });
    expect(byName.get('mcp__weather__book')).toEqual({
      name: 'mcp__weather__book',
      description: 'Book a table (seats) or a room (nights).',
      source: 'mcp',
      server: 'weather',
      readOnly: false,
      inputSchema: HTTP_TOOLS.find((tool) => tool.name === 'book')!.inputSchema,
    });
    expect(byName.get('ask_user')).toEqual({
      name: 'ask_user',
      description: expect.stringContaining('Ask the user'),
      source: 'builtin',
      readOnly: true,
      inputSchema: expect.objectContaining({ type: 'object', required: ['question'], properties: expect.objectContaining({ question: expect.anything(), choices: expect.anything() }) }),
    });
    expect(byName.get('mcp__notes__echo')).toMatchObject({ source: 'mcp', server: 'notes', readOnly: true });
    expect(byName.get('mcp__notes__write_note')).toMatchObject({ readOnly: false });
  });

  it('still starts when a server cannot, and logs why', () => {
    expect(log.text()).toContain('MCP server \\"broken\\" (stdio: interthought-no-such-mcp-server) did not start: its command was not found');
    expect(log.text()).toContain('MCP server \\"weather\\"');
  });

  it('needs the sign-in the other /api routes need', async () => {
    const guarded = await buildTestApp({ token: 'secret-token' });
    try {
      expect((await guarded.inject('/api/tools')).statusCode).toBe(401);
      const allowed = await guarded.inject({ url: '/api/tools', headers: { authorization: 'Bearer secret-token' } });
      expect(allowed.statusCode).toBe(200);
      expect(allowed.json()).toMatchObject({ tools: [{ name: 'calculator', source: 'builtin' }, expect.anything(), expect.anything(), { name: 'ask_user', source: 'builtin' }] });
    } finally {
      await guarded.close();
    }
  });
});

describe('closing the app', () => {
  it('ends the stdio servers it started', async () => {
    const extra = await buildTestApp({ mcp: mcpConfig([stdioServer('notes')]) });
    const stats = await extra.tools.get('mcp__notes__stats')!.execute({}, new AbortController().signal);
    const { pid } = stats.output as { pid: number };
    expect(() => process.kill(pid, 0)).not.toThrow();
    await extra.close();
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
