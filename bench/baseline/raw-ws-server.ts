/**
 * The benchmark's baseline: a bare `ws` server that sends the same frames as Interthought for
 * the firehose (same JSON shapes and sizes, same fan-out, same hello) with no Fastify, no
 * schema validation, no reducer and no store. Every figure of the bench is divided by this
 * server's, measured in the same run. Loopback only.
 *
 *   node --import tsx bench/baseline/raw-ws-server.ts   (PORT=0 picks a free port)
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { RawSession, rawId, type RawPeer } from './raw-session.js';

const HOST = '127.0.0.1';
const PORT = Number(process.env.PORT ?? 0);
/** The limits Interthought announces under the bench's environment, so `hello` is the same size. */
const LIMITS = {
  maxFrameBytes: 65_536,
  maxTaskChars: 20_000,
  maxCorrectionChars: 20_000,
  maxSessionsPerConnection: 100_000,
  maxSubscriptionsPerConnection: 100_000,
  requestsPerSecond: 100_000,
  requestBurst: 100_000,
};

const sessions = new Map<string, RawSession>();

interface Request {
  type?: unknown;
  id?: unknown;
  sessionId?: unknown;
  task?: unknown;
  afterSeq?: unknown;
  stepId?: unknown;
  content?: unknown;
}

class RawConnection implements RawPeer {
  readonly id = `c_${rawId().slice(0, 12)}`;
  readonly subscriptions = new Set<RawSession>();
  constructor(readonly ws: WebSocket) {}
  send(frame: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(frame);
  }
}

function answer(connection: RawConnection, requestId: string | undefined, body: Record<string, unknown>): void {
  connection.send(JSON.stringify(requestId === undefined ? body : { ...body, requestId }));
}

function refuse(connection: RawConnection, requestId: string | undefined, code: string, message: string): void {
  answer(connection, requestId, { type: 'error', code, message });
}

function subscribe(connection: RawConnection, session: RawSession, requestId: string | undefined, afterSeq: unknown): void {
  if (typeof afterSeq === 'number') {
    answer(connection, requestId, { type: 'session.subscribed', sessionId: session.id, afterSeq, lastSeq: session.seq });
    for (let seq = afterSeq; seq < session.frames.length; seq++) connection.send(session.frames[seq] ?? '');
  } else {
    answer(connection, requestId, { type: 'session.snapshot', ...session.snapshot() });
  }
  session.subscribers.add(connection);
  connection.subscriptions.add(session);
}

function create(connection: RawConnection, requestId: string | undefined, task: unknown): void {
  const session = new RawSession(String(task));
  sessions.set(session.id, session);
  answer(connection, requestId, { type: 'session.created', session: session.info() });
  session.subscribers.add(connection);
  connection.subscriptions.add(session);
  session.setStatus('running');
  session.startRun();
}

function handle(connection: RawConnection, request: Request): void {
  const requestId = typeof request.id === 'string' ? request.id : undefined;
  if (request.type === 'session.create') return create(connection, requestId, request.task);
  const session = typeof request.sessionId === 'string' ? sessions.get(request.sessionId) : undefined;
  if (session === undefined) return refuse(connection, requestId, 'SESSION_NOT_FOUND', 'No such session.');
  switch (request.type) {
    case 'session.subscribe':
      return subscribe(connection, session, requestId, request.afterSeq);
    case 'session.unsubscribe':
      session.subscribers.delete(connection);
      connection.subscriptions.delete(session);
      return answer(connection, requestId, { type: 'session.unsubscribed', sessionId: session.id });
    case 'step.correct': {
      const refused = session.correct(String(request.stepId), String(request.content), connection.id, (accepted) =>
        answer(connection, requestId, { type: 'correction.accepted', sessionId: session.id, stepId: request.stepId, ...accepted }),
      );
      if (refused) refuse(connection, requestId, refused.code, 'Correction refused.');
      return;
    }
    case 'session.cancel':
      if (session.status !== 'running') return refuse(connection, requestId, 'INVALID_STATE', `The session is ${session.status}.`);
      session.stopRun();
      return session.setStatus('cancelled', requestId === undefined ? undefined : { peer: connection, requestId });
    default:
      return refuse(connection, requestId, 'UNKNOWN_TYPE', 'Unknown request type.');
  }
}

const server = new WebSocketServer({ host: HOST, port: PORT, path: '/ws', perMessageDeflate: false, maxPayload: LIMITS.maxFrameBytes });

server.on('connection', (ws) => {
  const connection = new RawConnection(ws);
  ws.on('message', (data: Buffer) => {
    try {
      handle(connection, JSON.parse(data.toString('utf8')) as Request);
    } catch (error) {
      refuse(connection, undefined, 'BAD_FRAME', error instanceof Error ? error.message : String(error));
    }
  });
  ws.on('close', () => {
    for (const session of connection.subscriptions) session.subscribers.delete(connection);
  });
  ws.on('error', () => undefined);
  connection.send(
    JSON.stringify({
      type: 'hello',
      protocol: 'interthought/1',
      serverVersion: '0.1.0',
      connectionId: connection.id,
      capabilities: ['corrections', 'replay', 'pause', 'branches'],
      limits: LIMITS,
    }),
  );
});

server.on('listening', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`Raw ws baseline is running at http://${HOST}:${port}`);
});

// Nothing to save: drop the connections and go.
const stop = () => {
  for (const client of server.clients) client.terminate();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
