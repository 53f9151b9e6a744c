import { describe, expect, it } from 'vitest';
import { addMcpTools } from '../../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../../src/tools/tool-registry.js';
import { RecordingLog, eventually, mcpConfig, stdioServer, closedAfterEachTest } from './support/mcp-test-config.js';

// A server whose tool list changes says so (notifications/tools/list_changed); the registry, and
// so GET /api/tools and every agent's next model call, follow it.
const opened = closedAfterEachTest();

async function changingServer(): Promise<{ registry: ToolRegistry; log: RecordingLog }> {
  const registry = new ToolRegistry();
  const log = new RecordingLog();
  const server = { ...stdioServer('notes'), env: { MCP_TEST_CHANGING_TOOLS: '1' } };
  opened.mcp = await addMcpTools(registry, mcpConfig([server]), log);
  return { registry, log };
}

const signal = new AbortController().signal;

describe('MCP tools: a server whose tools change', () => {
  it('registers a tool the server adds, and takes away one it removes', async () => {
    const { registry, log } = await changingServer();
    expect(registry.get('mcp__notes__extra')).toBeUndefined();

    await registry.get('mcp__notes__grow')!.execute({}, signal);
    await eventually(() => registry.get('mcp__notes__extra') !== undefined, 'the added tool to be registered');
    expect(registry.get('mcp__notes__extra')).toMatchObject({ effect: 'read', description: 'Appears when asked.' });
    expect(await registry.get('mcp__notes__extra')!.execute({}, signal)).toMatchObject({ text: 'extra here' });
    expect(opened.mcp!.tools.map((tool) => tool.name)).toContain('mcp__notes__extra');
    expect(log.messages('info')).toContain('MCP server "notes" changed its tools: added mcp__notes__extra.');

    await registry.get('mcp__notes__shrink')!.execute({}, signal);
    await eventually(() => registry.get('mcp__notes__extra') === undefined, 'the removed tool to be taken away');
    expect(opened.mcp!.tools.map((tool) => tool.name)).not.toContain('mcp__notes__extra');
    expect(log.messages('info')).toContain('MCP server "notes" changed its tools: removed mcp__notes__extra.');
  });

  it('replaces a tool whose description changed, under the same name', async () => {
    const { registry, log } = await changingServer();
    const before = registry.get('mcp__notes__echo')!;
    await registry.get('mcp__notes__redescribe')!.execute({}, signal);
    await eventually(() => registry.get('mcp__notes__echo') !== before, 'the changed tool to be replaced');
    expect(registry.get('mcp__notes__echo')!.description).toBe('Repeat a text, now with a new description.');
    expect(await registry.get('mcp__notes__echo')!.execute({ text: 'still' }, signal)).toMatchObject({ text: 'echo: still' });
    expect(log.messages('info')).toContain('MCP server "notes" changed its tools: changed mcp__notes__echo.');
    expect(registry.list().filter((tool) => tool.name === 'mcp__notes__echo')).toHaveLength(1);
  });
});
