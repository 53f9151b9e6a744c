import { describe, expect, it } from 'vitest';
import { addMcpTools } from '../../../src/tools/mcp/index.js';
import { ToolError } from '../../../src/tools/tool.js';
import { ToolRegistry } from '../../../src/tools/tool-registry.js';
import { HttpMcpTestServer } from './support/http-test-server.js';
import { RecordingLog, eventually, httpServer, mcpConfig, stdioServer, closedAfterEachTest } from './support/mcp-test-config.js';

// Faults of an MCP server never reach the Interthought server: they become the call's observation
// (a ToolError), and the next call finds the server again.
const TIMEOUT_MS = 600;
const opened = closedAfterEachTest();

async function withStdioServer(): Promise<{ registry: ToolRegistry; log: RecordingLog }> {
  const registry = new ToolRegistry();
  const log = new RecordingLog();
  opened.mcp = await addMcpTools(registry, mcpConfig([stdioServer('notes')], TIMEOUT_MS), log);
  return { registry, log };
}

function run(registry: ToolRegistry, name: string, input: object = {}, signal = new AbortController().signal) {
  return registry.get(name)!.execute(input, signal);
}

async function statsOf(registry: ToolRegistry): Promise<{ pid: number; cancelled: number }> {
  return (await run(registry, 'mcp__notes__stats')).output as { pid: number; cancelled: number };
}

describe('MCP tools: faults', () => {
  it('ends a hung call at INTERTHOUGHT_MCP_TIMEOUT_MS with an observation saying so, and cancels it on the server', async () => {
    const { registry } = await withStdioServer();
    const started = Date.now();
    const hung = run(registry, 'mcp__notes__wait');
    await expect(hung).rejects.toBeInstanceOf(ToolError);
    await expect(hung).rejects.toThrow(`MCP server "notes" did not answer the wait call within ${TIMEOUT_MS} ms, so it was cancelled (INTERTHOUGHT_MCP_TIMEOUT_MS).`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    // Same process, still connected: the server saw the cancellation.
    await eventually(async () => (await statsOf(registry)).cancelled === 1, 'the server to see the cancellation');
  });

  it('stops a call at once when its run aborts, and cancels it on the server', async () => {
    const { registry } = await withStdioServer();
    const controller = new AbortController();
    const call = run(registry, 'mcp__notes__wait', {}, controller.signal);
    setTimeout(() => controller.abort(new Error('run stopped')), 50);
    const started = Date.now();
    await expect(call).rejects.toThrow('run stopped');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
    await eventually(async () => (await statsOf(registry)).cancelled === 1, 'the server to see the cancellation');
  });

  it('makes a crash during a call its observation, with the last words, and starts the server again on the next call', async () => {
    const { registry, log } = await withStdioServer();
    const before = await statsOf(registry);
    const crashed = run(registry, 'mcp__notes__crash');
    await expect(crashed).rejects.toBeInstanceOf(ToolError);
    await expect(crashed).rejects.toThrow(
      'MCP server "notes" stopped during the crash call; its last words on stderr: "about to crash on purpose". It is started again on the next call.',
    );
    expect(await run(registry, 'mcp__notes__echo', { text: 'back' })).toMatchObject({ text: 'echo: back' });
    expect((await statsOf(registry)).pid).not.toBe(before.pid);
    expect(log.messages('warn')).toEqual(['MCP server "notes" stopped; it is started again on the next call. Its last words on stderr: "about to crash on purpose".']);
  });

  it('starts a server killed while idle again on the next call, and logs that it stopped', async () => {
    const { registry, log } = await withStdioServer();
    const connection = opened.mcp!.connections[0]!;
    const { pid } = await statsOf(registry);
    expect(connection.pid).toBe(pid);
    process.kill(pid, 'SIGKILL');
    await eventually(() => connection.pid === undefined, 'the connection to notice the exit');
    expect(log.messages('warn')).toEqual([expect.stringMatching(/^MCP server "notes" stopped; it is started again on the next call\./)]);
    expect(await run(registry, 'mcp__notes__echo', { text: 'again' })).toMatchObject({ text: 'echo: again' });
    expect((await statsOf(registry)).pid).not.toBe(pid);
  });

  it('makes an unreachable HTTP server the observation, and reconnects once it answers again', async () => {
    opened.http = await HttpMcpTestServer.start();
    const registry = new ToolRegistry();
    opened.mcp = await addMcpTools(registry, mcpConfig([httpServer(opened.http!.url, 'weather')], TIMEOUT_MS), new RecordingLog());
    expect(await run(registry, 'mcp__weather__lookup', { city: 'Oslo' })).toMatchObject({ text: 'Sunny in Oslo.' });
    await opened.http!.stop();
    // Until fetch's pool has let go of the sockets the server closed, a request may still pick one.
    await eventually(() => fetch(opened.http!.url).then(() => false, (error: { cause?: { code?: string } }) => error.cause?.code === 'ECONNREFUSED'), 'the server to be gone');
    const down = run(registry, 'mcp__weather__lookup', { city: 'Rome' });
    await expect(down).rejects.toBeInstanceOf(ToolError);
    await expect(down).rejects.toThrow(/^MCP server "weather" could not be reached for the lookup call: fetch failed \(connect ECONNREFUSED [\d.:]+\)\. It is reconnected on the next call\.$/);
    await opened.http!.listen();
    expect(await run(registry, 'mcp__weather__lookup', { city: 'Rome' })).toMatchObject({ text: 'Sunny in Rome.' });
  });

  it('refuses calls once closed (the server is shutting down), and the process is gone', async () => {
    const { registry } = await withStdioServer();
    const { pid } = await statsOf(registry);
    await opened.mcp!.close();
    expect(() => process.kill(pid, 0)).toThrow();
    await expect(run(registry, 'mcp__notes__echo', { text: 'late' })).rejects.toThrow(
      'MCP server "notes" is not running and could not be started again: Interthought is shutting down',
    );
  });
});
