// @vitest-environment node
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openPage, screenshot } from './support/browser.js';
import { useServerAndBrowser } from './support/shared-env.js';

// The tools the agent may call, as the home page lists them: the server's own and those of an MCP
// server it is configured with (the server tests' stdio MCP server, run with tsx as its own process).
const SERVER_TESTS = new URL('../../../server/', import.meta.url);
const mcpFile = join(mkdtempSync(join(tmpdir(), 'interthought-e2e-mcp-')), 'mcp.json');
writeFileSync(
  mcpFile,
  JSON.stringify({
    mcpServers: {
      notes: {
        command: process.execPath,
        args: ['--import', new URL('node_modules/tsx/dist/loader.mjs', SERVER_TESTS).href, fileURLToPath(new URL('test/tools/mcp/support/stdio-test-server.ts', SERVER_TESTS))],
      },
    },
  }),
);
const env = useServerAndBrowser({ INTERTHOUGHT_MCP_CONFIG: mcpFile });

describe('the tools the agent may call, in Chromium', () => {
  it('lists the built-in tools and the MCP server’s, marking where each comes from and which ask first', async () => {
    const { page, context, errors } = await openPage(env().browser, env().server.url);
    try {
      await page.goto('/');
      const list = page.getByTestId('tool-list');
      await list.locator('summary').click();
      expect(await list.locator('summary').innerText()).toMatch(/^Tools the server offers agents \(\d+\) · \d+ from MCP servers$/);
      expect(await list.locator('[data-tool="calculator"] .badge').count()).toBe(0);
      const write = list.locator('[data-tool="mcp__notes__write_note"]');
      expect(await write.locator('.badge').allInnerTexts()).toEqual(['MCP · notes', 'asks first']);
      expect(await list.locator('[data-tool="mcp__notes__echo"] .badge').allInnerTexts()).toEqual(['MCP · notes']);
      await screenshot(page, '46-home-tools');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
