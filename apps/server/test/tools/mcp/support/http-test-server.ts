import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

/*
 * An MCP server over Streamable HTTP on a local port, with the SDK's low-level Server so that its
 * tools carry hand-written JSON Schemas (one with if/then/else, which zod cannot express) and its
 * `tools/list` pages two tools at a time. Stateful: each client gets a session id.
 */

export const HTTP_TOOLS: Tool[] = [
  {
    name: 'lookup',
    description: 'The weather of a city.',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string', minLength: 1, description: 'A city name' } },
      required: ['city'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'book',
    description: 'Book a table (seats) or a room (nights).',
    inputSchema: {
      type: 'object',
      properties: { kind: { type: 'string', enum: ['table', 'room'] }, seats: { type: 'integer', minimum: 1 }, nights: { type: 'integer', minimum: 1 } },
      required: ['kind'],
      if: { properties: { kind: { const: 'room' } } },
      then: { required: ['nights'] },
      else: { required: ['seats'] },
    },
  },
  {
    name: 'ping.now',
    description: 'Answer pong.',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: false },
  },
];

const PAGE_SIZE = 2;

function answer(name: string, args: Record<string, unknown>): CallToolResult {
  switch (name) {
    case 'lookup':
      return { content: [{ type: 'text', text: `Sunny in ${String(args.city)}.` }] };
    case 'book':
      return { content: [{ type: 'text', text: `Booked a ${String(args.kind)}.` }], structuredContent: { booked: args } };
    case 'ping.now':
      return { content: [{ type: 'text', text: 'pong' }] };
    default:
      return { content: [{ type: 'text', text: `No tool ${name}.` }], isError: true };
  }
}

function mcpServer(): Server {
  const server = new Server({ name: 'interthought-test-http', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const next = start + PAGE_SIZE;
    return { tools: HTTP_TOOLS.slice(start, next), ...(next < HTTP_TOOLS.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => answer(request.params.name, request.params.arguments ?? {}));
  return server;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      resolve(text === '' ? undefined : JSON.parse(text));
    });
    req.on('error', reject);
  });
}

export class HttpMcpTestServer {
  readonly #sessions = new Map<string, StreamableHTTPServerTransport>();
  #http: HttpServer | undefined;
  #port = 0;
  /** `tools/call` requests received, by tool name. */
  readonly calls: Array<{ name: string; args: unknown }> = [];

  static async start(): Promise<HttpMcpTestServer> {
    const server = new HttpMcpTestServer();
    await server.listen();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}/mcp`;
  }

  /** Listen (again, on the same port after `stop`). */
  async listen(): Promise<void> {
    const http = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve) => http.listen(this.#port, '127.0.0.1', resolve));
    this.#port = (http.address() as AddressInfo).port;
    this.#http = http;
  }

  /** Stop answering: the sessions end and the port closes (a server that went away). */
  async stop(): Promise<void> {
    const http = this.#http;
    this.#http = undefined;
    for (const transport of this.#sessions.values()) await transport.close();
    this.#sessions.clear();
    if (!http) return;
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined;
    if (transport === undefined) {
      if (sessionId !== undefined || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      const fresh = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void this.#sessions.set(id, fresh),
      });
      await mcpServer().connect(fresh);
      transport = fresh;
    }
    const message = body as { method?: string; params?: { name?: string; arguments?: unknown } } | undefined;
    if (message?.method === 'tools/call') this.calls.push({ name: message.params?.name ?? '', args: message.params?.arguments });
    await transport.handleRequest(req, res, body);
  }
}
