import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMcpTools, type McpTools } from '../../../src/tools/mcp/index.js';
import { ToolError } from '../../../src/tools/tool.js';
import { ToolRegistry } from '../../../src/tools/tool-registry.js';
import { toolJsonSchema } from '../../../src/tools/tool-json-schema.js';
import { HTTP_TOOLS, HttpMcpTestServer } from './support/http-test-server.js';
import { RecordingLog, TEST_SERVERS_TOOL_NAMES, closedPort, httpServer, mcpConfig, stdioServer } from './support/mcp-test-config.js';

// One stdio server (the SDK's McpServer in its own process) and one Streamable HTTP server (the
// SDK's low-level Server, paging its tools two at a time), registered as Interthought tools.
let http: HttpMcpTestServer;
let registry: ToolRegistry;
let mcp: McpTools;
let log: RecordingLog;
let offlineUrl: string;
const signal = new AbortController().signal;

beforeAll(async () => {
  http = await HttpMcpTestServer.start();
  registry = new ToolRegistry();
  log = new RecordingLog();
  const exitsAtOnce = { name: 'broken', transport: 'stdio' as const, command: process.execPath, args: ['-e', 'process.stderr.write("MISSING_API_KEY is not set\\n"); process.exit(2)'], env: {}, cwd: undefined };
  const missing = { name: 'missing', transport: 'stdio' as const, command: 'interthought-no-such-mcp-server', args: [], env: {}, cwd: undefined };
  offlineUrl = `http://127.0.0.1:${await closedPort()}/mcp`;
  const unreachable = httpServer(offlineUrl, 'offline');
  mcp = await addMcpTools(registry, mcpConfig([stdioServer('notes'), httpServer(http.url, 'weather'), exitsAtOnce, missing, unreachable]), log);
});
afterAll(async () => {
  await mcp?.close();
  await http?.stop();
});

describe('MCP tools: listing', () => {
  it('registers every tool of both servers as mcp__<server>__<tool>, following tools/list pages', () => {
    expect(registry.list().map((tool) => tool.name)).toEqual(TEST_SERVERS_TOOL_NAMES);
    expect(registry.get('mcp__notes__echo')).toMatchObject({ description: 'Repeat a text.', mcp: { server: 'notes', tool: 'echo' } });
    expect(registry.get('mcp__weather__ping_now')).toMatchObject({ mcp: { server: 'weather', tool: 'ping.now' } });
  });

  it('only reads when the server says readOnlyHint: true; anything else changes', () => {
    const effects = Object.fromEntries(registry.list().map((tool) => [tool.name, tool.effect]));
    expect(effects).toMatchObject({
      mcp__notes__echo: 'read',
      mcp__notes__write_note: 'change',
      mcp__weather__lookup: 'read',
      mcp__weather__book: 'change',
      mcp__weather__ping_now: 'change',
    });
  });

  it("keeps the server's JSON Schema unchanged for models and listings", () => {
    for (const listed of HTTP_TOOLS) {
      const tool = registry.list().find((candidate) => 'mcp' in candidate && (candidate.mcp as { tool: string }).tool === listed.name)!;
      expect(tool.jsonSchema).toEqual(listed.inputSchema);
      expect(toolJsonSchema(tool)).toEqual(listed.inputSchema);
    }
    expect(toolJsonSchema(registry.get('mcp__notes__echo')!)).toEqual({
      type: 'object',
      properties: { text: { type: 'string', minLength: 1, description: 'What to repeat' } },
      required: ['text'],
    });
  });

  it('checks input against the schema, naming the field', () => {
    expect(registry.checkInput('mcp__notes__echo', '{"text":"hi"}')).toEqual({ ok: true, input: { text: 'hi' } });
    expect(registry.checkInput('mcp__notes__echo', '{"text":""}')).toMatchObject({ ok: false, details: [{ path: ['text'] }] });
    expect(registry.checkInput('mcp__weather__lookup', '{"city":"Oslo","when":"now"}')).toMatchObject({ ok: false, message: expect.stringContaining('when') });
  });

  it('checks a schema zod cannot express (if/then/else) with the JSON Schema validator', () => {
    expect(registry.checkInput('mcp__weather__book', '{"kind":"room","nights":2}')).toMatchObject({ ok: true });
    expect(registry.checkInput('mcp__weather__book', '{"kind":"table","seats":4}')).toMatchObject({ ok: true });
    expect(registry.checkInput('mcp__weather__book', '{"kind":"room","seats":4}')).toMatchObject({
      ok: false,
      message: expect.stringContaining("must have required property 'nights'"),
    });
  });

  it('logs one line per server: its tools, or why it did not start', () => {
    expect(log.messages('info')).toEqual([
      expect.stringMatching(/^MCP server "notes" \(stdio: .*\): 7 tools: mcp__notes__echo, mcp__notes__add/),
      `MCP server "weather" (http: ${http.url}): 3 tools: mcp__weather__lookup, mcp__weather__book, mcp__weather__ping_now`,
    ]);
    const failures = log.messages('warn');
    expect(failures).toHaveLength(3);
    expect(failures).toContainEqual(
      expect.stringMatching(/^MCP server "broken" \(stdio: .*\) did not start: it exited before answering "initialize"; its last words on stderr: "MISSING_API_KEY is not set"\. Interthought runs without its tools until it does: it is tried again in 5 s, then less and less often \(at least every 300 s\); or fix the server or \/test\/mcp\.json and restart\.$/),
    );
    expect(failures).toContainEqual(expect.stringMatching(/^MCP server "missing" \(stdio: interthought-no-such-mcp-server\) did not start: its command was not found/));
    expect(failures).toContainEqual(expect.stringMatching(new RegExp(`^MCP server "offline" \\(http: ${offlineUrl}\\) did not start: fetch failed \\(connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+\\)`)));
    expect(mcp.connections.map((connection) => connection.name)).toEqual(['notes', 'weather', 'broken', 'missing', 'offline']);
  });
});

describe('MCP tools: results', () => {
  it('gives text content as the observation text', async () => {
    expect(await registry.get('mcp__notes__echo')!.execute({ text: 'hello' }, signal)).toEqual({
      text: 'echo: hello',
      output: { content: [{ type: 'text', text: 'echo: hello' }] },
    });
    expect(await registry.get('mcp__weather__lookup')!.execute({ city: 'Oslo' }, signal)).toMatchObject({ text: 'Sunny in Oslo.' });
  });

  it('gives structured content as the output', async () => {
    expect(await registry.get('mcp__notes__add')!.execute({ a: 2, b: 3 }, signal)).toEqual({ text: '2 + 3 = 5', output: { sum: 5 } });
    expect(await registry.get('mcp__weather__book')!.execute({ kind: 'room', nights: 2 }, signal)).toEqual({
      text: 'Booked a room.',
      output: { booked: { kind: 'room', nights: 2 } },
    });
    expect(http.calls).toContainEqual({ name: 'book', args: { kind: 'room', nights: 2 } });
  });

  it("turns isError into a ToolError with the server's text", async () => {
    const failing = registry.get('mcp__notes__fail')!.execute({}, signal);
    await expect(failing).rejects.toBeInstanceOf(ToolError);
    await expect(failing).rejects.toThrow(/^The disk is full\.$/);
  });
});
