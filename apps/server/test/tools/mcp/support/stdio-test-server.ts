import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/*
 * A small MCP server over stdio, run by the tests as its own process (`node --import tsx`), built
 * with the SDK's McpServer and zod shapes as MCP servers are usually written.
 */

const server = new McpServer({ name: 'interthought-test-stdio', version: '1.0.0' });
let cancelled = 0;

const echo = server.registerTool(
  'echo',
  { description: 'Repeat a text.', inputSchema: { text: z.string().min(1).describe('What to repeat') }, annotations: { readOnlyHint: true } },
  async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
);

server.registerTool(
  'add',
  {
    description: 'Add two numbers.',
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
    annotations: { readOnlyHint: true },
  },
  async ({ a, b }) => ({ content: [{ type: 'text', text: `${a} + ${b} = ${a + b}` }], structuredContent: { sum: a + b } }),
);

server.registerTool(
  'write_note',
  { description: 'Save a note.', inputSchema: { title: z.string().min(1), body: z.string().optional() } },
  async ({ title, body }) => ({ content: [{ type: 'text', text: `Saved "${title}"${body === undefined ? '' : ` (${body.length} characters)`}.` }] }),
);

server.registerTool('fail', { description: 'Always fails.', annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: 'text', text: 'The disk is full.' }],
  isError: true,
}));

server.registerTool(
  'wait',
  { description: 'Never answers until cancelled.', annotations: { readOnlyHint: true } },
  (extra) =>
    new Promise((resolve) => {
      extra.signal.addEventListener('abort', () => {
        cancelled++;
        resolve({ content: [{ type: 'text', text: 'cancelled' }] });
      });
    }),
);

server.registerTool('stats', { description: 'This process and the calls it saw cancelled.', annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: 'text', text: `pid ${process.pid}` }],
  structuredContent: { pid: process.pid, cancelled },
}));

server.registerTool('crash', { description: 'Exits in the middle of the call.', annotations: { readOnlyHint: true } }, async () => {
  process.stderr.write('about to crash on purpose\n');
  process.exit(3);
});

if (process.env.MCP_TEST_CHANGING_TOOLS === '1') {
  // Tools that change the tool list; the SDK sends notifications/tools/list_changed for each change.
  let extra: ReturnType<typeof server.registerTool> | undefined;
  server.registerTool('grow', { description: 'Adds the tool "extra".' }, async () => {
    extra ??= server.registerTool('extra', { description: 'Appears when asked.', annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: 'extra here' }] }));
    return { content: [{ type: 'text', text: 'grown' }] };
  });
  server.registerTool('shrink', { description: 'Removes the tool "extra".' }, async () => {
    extra?.remove();
    extra = undefined;
    return { content: [{ type: 'text', text: 'shrunk' }] };
  });
  server.registerTool('redescribe', { description: 'Changes the description of "echo".' }, async () => {
    echo.update({ description: 'Repeat a text, now with a new description.' });
    return { content: [{ type: 'text', text: 'redescribed' }] };
  });
}

await server.connect(new StdioServerTransport());
process.stderr.write(`test MCP server ${process.pid} ready\n`);
