import { describe, expect, it } from 'vitest';
import { addMcpTools } from '../../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../../src/tools/tool-registry.js';
import { HttpMcpTestServer } from './support/http-test-server.js';
import { RecordingLog, eventually, httpServer, mcpConfig, closedAfterEachTest } from './support/mcp-test-config.js';

// A server that is not up when Interthought starts (another container, a service still booting)
// is tried again in the background and joins once it answers, without a restart.
const RETRY = { firstMs: 50, maxMs: 200 };
const opened = closedAfterEachTest();

/** An HTTP MCP server whose port is known but closed: it "starts" when `listen()` is called again. */
async function serverNotYetUp(): Promise<HttpMcpTestServer> {
  const server = await HttpMcpTestServer.start();
  await server.stop();
  return server;
}

describe('MCP tools: a server that did not start', () => {
  it('is tried again in the background and its tools are registered once it answers', async () => {
    opened.http = await serverNotYetUp();
    const registry = new ToolRegistry();
    const log = new RecordingLog();
    opened.mcp = await addMcpTools(registry, mcpConfig([httpServer(opened.http!.url, 'weather')]), log, RETRY);
    expect(registry.list()).toEqual([]);
    expect(log.messages('warn')).toEqual([
      expect.stringMatching(/^MCP server "weather" \(http: .*\) did not start: fetch failed \(connect ECONNREFUSED .*\)\. Interthought runs without its tools until it does: it is tried again in 0\.1 s, then less and less often \(at least every 0\.2 s\);/),
    ]);
    await eventually(() => log.messages('info').some((line) => line.includes('still did not start at try 2')), 'a second failed try');

    await opened.http!.listen();
    await eventually(() => registry.get('mcp__weather__lookup') !== undefined, 'the late server to register its tools');
    expect(registry.list().map((tool) => tool.name)).toEqual(['mcp__weather__lookup', 'mcp__weather__book', 'mcp__weather__ping_now']);
    expect(opened.mcp!.tools).toHaveLength(3);
    expect(log.messages('info').at(-1)).toMatch(/^MCP server "weather" \(http: .*\) started at try \d+: 3 tools: mcp__weather__lookup, mcp__weather__book, mcp__weather__ping_now$/);
    expect(await registry.get('mcp__weather__lookup')!.execute({ city: 'Oslo' }, new AbortController().signal)).toMatchObject({ text: 'Sunny in Oslo.' });
  });

  it('stops trying once Interthought closes its MCP tools', async () => {
    opened.http = await serverNotYetUp();
    const registry = new ToolRegistry();
    const log = new RecordingLog();
    opened.mcp = await addMcpTools(registry, mcpConfig([httpServer(opened.http!.url, 'weather')]), log, RETRY);
    await opened.mcp!.close();
    const lines = log.lines.length;
    await opened.http!.listen();
    await new Promise((resolve) => setTimeout(resolve, RETRY.maxMs * 3));
    expect(log.lines).toHaveLength(lines);
    expect(registry.list()).toEqual([]);
  });
});
