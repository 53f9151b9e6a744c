import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * An MCP server over Streamable HTTP (stateless: a server and transport per request, as the SDK
 * advises) with one read-only tool, `trace_probe`, that keeps the `_meta` of every call it gets.
 */
export class TraceProbeMcpServer {
  /** The `_meta` of each `tools/call` (undefined when the request had none). */
  readonly metas: Array<Record<string, unknown> | undefined> = [];

  private constructor(private readonly http: HttpServer) {}

  static async start(): Promise<TraceProbeMcpServer> {
    const http = createServer();
    const probe = new TraceProbeMcpServer(http);
    http.on('request', (req, res) => {
      void (async () => {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        await probe.#mcpServer().connect(transport);
        res.on('close', () => void transport.close());
        await transport.handleRequest(req, res, req.method === 'POST' ? await readJson(req) : undefined);
      })();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    return probe;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  #mcpServer(): Server {
    const server = new Server({ name: 'interthought-trace-probe', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'trace_probe', description: 'Answer ok.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      this.metas.push(request.params._meta);
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    return server;
  }
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(JSON.parse(Buffer.concat(parts).toString('utf8'))));
    req.on('error', reject);
  });
}
