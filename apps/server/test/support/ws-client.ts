import {
  SESSION_EVENT_TYPES,
  type ServerMessage,
  type ServerMessageType,
  type SessionEvent,
  type SessionStatus,
} from '@interthought/protocol';
import type { FastifyInstance } from 'fastify';
import WebSocket, { type ClientOptions } from 'ws';

export type FrameOf<T extends ServerMessageType> = Extract<ServerMessage, { type: T }>;
export interface CloseInfo {
  code: number;
  reason: string;
}

const eventTypes: ReadonlySet<string> = new Set(SESSION_EVENT_TYPES);
const FINAL_STATUSES: ReadonlySet<SessionStatus> = new Set(['completed', 'failed', 'cancelled']);
const DEFAULT_WAIT_MS = 8_000;

export function isSessionEvent(frame: ServerMessage): frame is SessionEvent {
  return eventTypes.has(frame.type);
}

interface Waiter {
  predicate: (frame: ServerMessage) => boolean;
  resolve: (frame: ServerMessage) => void;
}

/**
 * A real `ws` client that records every frame it receives, so tests can wait for a frame,
 * inspect the whole sequence afterwards, and see how the connection ended.
 */
export class TestClient {
  readonly frames: ServerMessage[] = [];
  readonly closed: Promise<CloseInfo>;
  #closeInfo: CloseInfo | undefined;
  readonly #waiters = new Set<Waiter>();
  #nextId = 1;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as ServerMessage;
      this.frames.push(frame);
      for (const waiter of this.#waiters) {
        if (waiter.predicate(frame)) {
          this.#waiters.delete(waiter);
          waiter.resolve(frame);
        }
      }
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', (code, reason) => {
        this.#closeInfo = { code, reason: reason.toString() };
        resolve(this.#closeInfo);
      });
    });
    socket.on('error', () => {
      // A test that provokes an error asserts on `closed`; the event only needs a listener.
    });
  }

  /** Connect to a listening server; resolves once open, rejects with "Unexpected server response: 403" and the like. */
  static connect(url: string, options?: ClientOptions): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, options);
      const client = new TestClient(socket);
      socket.once('open', () => resolve(client));
      socket.once('error', reject);
    });
  }

  /** Connect through `app.injectWS` (no listening server); frames are recorded from the first one. */
  static async inject(app: FastifyInstance, path = '/ws', upgradeContext: { headers?: Record<string, string> } = {}): Promise<TestClient> {
    let client: TestClient | undefined;
    await app.injectWS(path, upgradeContext, {
      onInit: (socket) => {
        client = new TestClient(socket);
      },
    });
    if (!client) throw new Error('injectWS did not initialise the socket');
    return client;
  }

  get closeInfo(): CloseInfo | undefined {
    return this.#closeInfo;
  }

  sendRaw(data: string | Buffer, options: { binary?: boolean } = {}): void {
    this.socket.send(data, { binary: options.binary ?? false });
  }

  /** Send a request, giving it an id if it has none; returns the id. */
  send(frame: Record<string, unknown>): string {
    const id = typeof frame.id === 'string' ? frame.id : `r${this.#nextId++}`;
    this.sendRaw(JSON.stringify({ ...frame, id }));
    return id;
  }

  /** The first frame (already received or still to come) that matches. */
  waitFor(predicate: (frame: ServerMessage) => boolean, what = 'a matching frame', timeoutMs = DEFAULT_WAIT_MS): Promise<ServerMessage> {
    const seen = this.frames.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        const recent = this.frames.slice(-5).map((frame) => JSON.stringify(frame).slice(0, 200));
        reject(new Error(`Timed out waiting for ${what}; close: ${JSON.stringify(this.#closeInfo)}; last frames:\n${recent.join('\n')}`));
      }, timeoutMs);
      const waiter: Waiter = {
        predicate,
        resolve: (frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
      };
      this.#waiters.add(waiter);
    });
  }

  /** The first frame of `type` (that also matches `where`). */
  async waitForType<T extends ServerMessageType>(type: T, where: (frame: FrameOf<T>) => boolean = () => true): Promise<FrameOf<T>> {
    const frame = await this.waitFor((f) => f.type === type && where(f as FrameOf<T>), `a ${type} frame`);
    return frame as FrameOf<T>;
  }

  /** The direct answer to request `id` (any frame carrying `requestId: id`). */
  answerTo(id: string): Promise<ServerMessage> {
    return this.waitFor((frame) => 'requestId' in frame && frame.requestId === id, `the answer to ${id}`);
  }

  /** The session's events received so far, in arrival order. */
  events(sessionId: string): SessionEvent[] {
    return this.frames.filter((frame): frame is SessionEvent => isSessionEvent(frame) && frame.sessionId === sessionId);
  }

  /** Wait until the session reaches a final status; resolves with its events up to then. */
  async untilFinished(sessionId: string, timeoutMs = DEFAULT_WAIT_MS): Promise<SessionEvent[]> {
    await this.waitFor(
      (frame) => frame.type === 'session.status' && frame.sessionId === sessionId && FINAL_STATUSES.has(frame.status),
      `session ${sessionId} to finish`,
      timeoutMs,
    );
    return this.events(sessionId);
  }

  /** Create a session and return its id once `session.created` arrives. */
  async createSession(task: string, extra: Record<string, unknown> = {}): Promise<string> {
    const id = this.send({ type: 'session.create', task, ...extra });
    const answer = await this.answerTo(id);
    if (answer.type !== 'session.created') throw new Error(`session.create was answered with ${JSON.stringify(answer)}`);
    return answer.session.sessionId;
  }

  close(): Promise<CloseInfo> {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.close();
    return this.closed;
  }

  terminate(): void {
    this.socket.terminate();
  }
}
