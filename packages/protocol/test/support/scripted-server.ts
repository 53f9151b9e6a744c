import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  PROTOCOL_VERSION,
  applyEvents,
  createSessionState,
  toSnapshot,
  type ClientMessage,
  type SessionEvent,
  type SessionInfo,
} from '../../src/index.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event as a test writes it: the server adds `sessionId`, `seq` and `at`. */
export type EventBody = DistributiveOmit<SessionEvent, 'sessionId' | 'seq' | 'at'>;

/** One client connection as the server sees it. */
export interface Connection {
  readonly index: number;
  readonly socket: WebSocket;
  readonly subscriptions: Set<string>;
  /** Follows the list of sessions (`sessions.watch`). */
  watching: boolean;
}

/** A session the server keeps: its info and its whole event log. */
export interface ScriptedSession {
  info: SessionInfo;
  events: SessionEvent[];
  /** When true, a subscribe with `afterSeq` is answered with a snapshot, as if old events were trimmed. */
  trimmed: boolean;
}

/** Handles one request; return true when it was handled (otherwise the default behaviour runs). */
export type RequestHandler = (message: ClientMessage, connection: Connection) => boolean | void;

/**
 * A tiny Interthought server for client tests: real `ws`, real frames, the protocol's request table
 * with an in-memory log per session. Tests script the rest: emit events, drop sockets, hold answers.
 */
export class ScriptedServer {
  readonly connections: Connection[] = [];
  /** What the next connections' `hello` announces (a test may play a server of another version). */
  protocol: string = PROTOCOL_VERSION;
  /** Every client frame, parsed, with the index of the connection it came on. */
  readonly received: Array<{ connection: number; frame: ClientMessage }> = [];
  readonly sessions = new Map<string, ScriptedSession>();
  /** The request URL of every connection (path and query). */
  readonly urls: string[] = [];
  private closed = false;
  /** What the next connections' `hello` announces as capabilities. */
  capabilities: string[] = ['corrections', 'replay', 'pause'];
  /** Overrides, tried before the default behaviour. */
  handler: RequestHandler | undefined;
  /** Events emitted by a `session.create` right after `session.created` (in the same tick). */
  eventsOnCreate: EventBody[] = [];
  private nextSession = 1;

  private constructor(private readonly wss: WebSocketServer) {
    wss.on('connection', (socket, request) => {
      this.urls.push(request.url ?? '');
      this.accept(socket);
    });
  }

  static async start(): Promise<ScriptedServer> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    return new ScriptedServer(wss);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}/ws`;
  }

  /** The frames of a type received so far. */
  requests<T extends ClientMessage['type']>(type: T): Array<Extract<ClientMessage, { type: T }>> {
    return this.received.map(({ frame }) => frame).filter((frame): frame is Extract<ClientMessage, { type: T }> => frame.type === type);
  }

  addSession(sessionId = `sess_${this.nextSession++}`, task = 'Plan a trip'): ScriptedSession {
    const session: ScriptedSession = {
      info: { sessionId, task, agent: 'demo', status: 'running', revision: 0, createdAt: '2025-01-01T00:00:00.000Z' },
      events: [],
      trimmed: false,
    };
    this.sessions.set(sessionId, session);
    this.announce({ type: 'sessions.changed', session: session.info });
    return session;
  }

  /** Change a session's summary and tell the list watchers. */
  setInfo(sessionId: string, change: Partial<SessionInfo>): void {
    const session = this.session(sessionId);
    session.info = { ...session.info, ...change };
    this.announce({ type: 'sessions.changed', session: session.info });
  }

  /** Send a list frame to every connection watching the list. */
  private announce(frame: object): void {
    for (const connection of this.connections) if (connection.watching) this.send(connection, frame);
  }

  /** Append an event to the session's log and send it to its subscribers. */
  emit(sessionId: string, body: EventBody): SessionEvent {
    const event = this.log(sessionId, body);
    for (const connection of this.connections) if (connection.subscriptions.has(sessionId)) this.send(connection, event);
    return event;
  }

  /** Append an event to the log without sending it (a frame the network lost). */
  log(sessionId: string, body: EventBody): SessionEvent {
    const session = this.session(sessionId);
    const seq = session.events.length + 1;
    const event = { ...body, sessionId, seq, at: new Date(Date.UTC(2025, 0, 1) + seq * 1_000).toISOString() } as SessionEvent;
    session.events.push(event);
    return event;
  }

  send(connection: Connection, frame: object): void {
    connection.socket.send(JSON.stringify(frame));
  }

  /** Kill every connection abruptly, as a crash or a network cut would (no close frame). */
  dropAll(): void {
    for (const connection of this.connections) connection.socket.terminate();
  }

  /** The connections still open. */
  openConnections(): Connection[] {
    return this.connections.filter((connection) => connection.socket.readyState === connection.socket.OPEN);
  }

  /** Stop the server; closing it again (a test that stopped it early) does nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private session(sessionId: string): ScriptedSession {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`The test named unknown session ${sessionId}`);
    return session;
  }

  private accept(socket: WebSocket): void {
    const connection: Connection = { index: this.connections.length, socket, subscriptions: new Set(), watching: false };
    this.connections.push(connection);
    this.send(connection, {
      type: 'hello',
      protocol: this.protocol,
      serverVersion: 'scripted',
      connectionId: `conn_${connection.index}`,
      capabilities: this.capabilities,
      limits: {
        maxFrameBytes: 65_536,
        maxTaskChars: 20_000,
        maxCorrectionChars: 20_000,
        maxSessionsPerConnection: 20,
        maxSubscriptionsPerConnection: 50,
        requestsPerSecond: 20,
        requestBurst: 40,
      },
    });
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as ClientMessage;
      this.received.push({ connection: connection.index, frame });
      if (this.handler?.(frame, connection)) return;
      this.answer(frame, connection);
    });
  }

  /** The protocol's default answers. */
  private answer(message: ClientMessage, connection: Connection): void {
    const requestId = message.id;
    switch (message.type) {
      case 'session.create': {
        const session = this.addSession(undefined, message.task);
        connection.subscriptions.add(session.info.sessionId);
        this.send(connection, { type: 'session.created', requestId, session: session.info });
        for (const body of this.eventsOnCreate) this.emit(session.info.sessionId, body);
        return;
      }
      case 'session.subscribe':
        return this.subscribe(connection, message.sessionId, message.afterSeq, requestId);
      case 'session.unsubscribe':
        connection.subscriptions.delete(message.sessionId);
        return this.send(connection, { type: 'session.unsubscribed', requestId, sessionId: message.sessionId });
      case 'step.correct':
        return this.refuse(connection, requestId, 'STEP_NOT_FOUND', `No step ${message.stepId}.`);
      case 'session.pause':
      case 'session.resume':
      case 'session.cancel': {
        const status = ({ 'session.pause': 'paused', 'session.resume': 'running', 'session.cancel': 'cancelled' } as const)[message.type];
        if (!this.sessions.has(message.sessionId)) return this.refuse(connection, requestId, 'SESSION_NOT_FOUND', 'No such session.');
        const event = this.log(message.sessionId, { type: 'session.status', status });
        // The requester's copy carries its request id; the other subscribers get the plain event.
        for (const other of this.connections) {
          if (other === connection) this.send(other, { ...event, requestId });
          else if (other.subscriptions.has(message.sessionId)) this.send(other, event);
        }
        return;
      }
      case 'session.delete':
        return this.delete(connection, message.sessionId, requestId);
      case 'sessions.watch': {
        connection.watching = true;
        const sessions = [...this.sessions.values()].map((session) => session.info).reverse().slice(0, message.limit ?? 50);
        return this.send(connection, { type: 'sessions.watching', requestId, sessions });
      }
      case 'sessions.unwatch':
        connection.watching = false;
        return this.send(connection, { type: 'sessions.unwatched', requestId });
      case 'session.fork': {
        // As the server does: the fork is idle, and the requester follows it from its first event.
        const source = this.sessions.get(message.sessionId);
        if (!source) return this.refuse(connection, requestId, 'SESSION_NOT_FOUND', 'No such session.');
        const fork = this.addSession(undefined, source.info.task);
        connection.subscriptions.add(fork.info.sessionId);
        this.send(connection, { type: 'session.created', requestId, session: { ...fork.info, status: 'idle', forkedFrom: { sessionId: message.sessionId, stepId: message.stepId } } });
        this.emit(fork.info.sessionId, { type: 'session.status', status: 'idle' });
        return;
      }
      case 'session.message':
        if (!this.sessions.has(message.sessionId)) return this.refuse(connection, requestId, 'SESSION_NOT_FOUND', 'No such session.');
        return this.send(connection, { type: 'message.accepted', requestId, sessionId: message.sessionId, stepId: `msg_${this.nextSession++}`, queued: false });
      case 'tool.approve':
      case 'tool.reject':
        return this.refuse(connection, requestId, 'APPROVAL_NOT_PENDING', `No approval was asked for ${message.stepId}.`);
      case 'subagent.cancel':
        return this.cancelSubagent(connection, message.sessionId, message.scope, requestId);
      case 'auth.refresh': {
        // Verifies nothing: it reads `exp` as the real server would after checking the signature.
        const exp = (JSON.parse(Buffer.from(message.token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp: number }).exp;
        return this.send(connection, { type: 'auth.refreshed', requestId, expiresAt: new Date(exp * 1000).toISOString() });
      }
    }
  }

  /** Send `session.deleted` (the last event, not logged) to every subscriber and the requester, then forget the session. */
  private delete(connection: Connection, sessionId: string, requestId: string | undefined): void {
    const session = this.sessions.get(sessionId);
    if (!session) return this.refuse(connection, requestId, 'SESSION_NOT_FOUND', `No session ${sessionId}.`);
    const seq = session.events.length + 1;
    const event = { type: 'session.deleted', sessionId, seq, at: new Date(Date.UTC(2025, 0, 1) + seq * 1_000).toISOString() };
    this.sessions.delete(sessionId);
    this.announce({ type: 'sessions.removed', sessionId });
    for (const other of this.connections) {
      if (other === connection) this.send(other, { ...event, requestId });
      else if (other.subscriptions.has(sessionId)) this.send(other, event);
      other.subscriptions.delete(sessionId);
    }
  }

  /** As PROTOCOL.md §24.6: only a running or waiting sub-agent is cancelled; the requester's copy of the status carries its request id. */
  private cancelSubagent(connection: Connection, sessionId: string, scope: string, requestId: string | undefined): void {
    const session = this.sessions.get(sessionId);
    if (!session) return this.refuse(connection, requestId, 'SESSION_NOT_FOUND', `No session ${sessionId}.`);
    const subagent = applyEvents(createSessionState(session.info), session.events).subagents.get(scope);
    if (!subagent) return this.refuse(connection, requestId, 'STEP_NOT_FOUND', `No sub-agent ${scope}.`);
    if (subagent.status !== 'running' && subagent.status !== 'waiting') return this.refuse(connection, requestId, 'INVALID_STATE', `Sub-agent ${scope} is ${subagent.status}.`);
    const event = this.log(sessionId, { type: 'subagent.status', scope, status: 'cancelled' });
    for (const other of this.connections) {
      if (other === connection) this.send(other, { ...event, requestId });
      else if (other.subscriptions.has(sessionId)) this.send(other, event);
    }
  }

  private subscribe(connection: Connection, sessionId: string, afterSeq: number | undefined, requestId: string | undefined): void {
    const session = this.sessions.get(sessionId);
    if (!session) return this.refuse(connection, requestId, 'SESSION_NOT_FOUND', `No session ${sessionId}.`);
    const lastSeq = session.events.length;
    if (afterSeq !== undefined && (afterSeq < 0 || afterSeq > lastSeq || !Number.isInteger(afterSeq))) {
      return this.refuse(connection, requestId, 'BAD_CURSOR', `afterSeq must be an integer from 0 to ${lastSeq}.`);
    }
    connection.subscriptions.add(sessionId);
    if (afterSeq === undefined || session.trimmed) {
      const state = applyEvents(createSessionState(session.info), session.events);
      return this.send(connection, { type: 'session.snapshot', requestId, ...toSnapshot(state) });
    }
    this.send(connection, { type: 'session.subscribed', requestId, sessionId, afterSeq, lastSeq });
    for (const event of session.events.slice(afterSeq)) this.send(connection, event);
  }

  private refuse(connection: Connection, requestId: string | undefined, code: string, message: string): void {
    this.send(connection, { type: 'error', requestId, code, message });
  }
}
