import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { readFrame, type WireFrame } from './wire-frame.js';

/** How a chaos client dies: `destroy` drops the TCP socket, `reset` aborts it with an RST. */
export type KillKind = 'destroy' | 'reset';

/** A frame as it arrived, with its parse (undefined when it is not a JSON object with a type). */
export type FrameListener = (raw: string, frame: WireFrame | undefined) => void;

/** A refused request: the `error` frame that answered it. */
export class RequestRefused extends Error {
  override readonly name = 'RequestRefused';
  constructor(readonly code: string, message: string) {
    super(`${code}: ${message}`);
  }
}

/**
 * One raw WebSocket connection of the chaos run: resolves once `hello` arrived, hands every later
 * frame to `onFrame`, settles requests by `requestId`, and can die abruptly.
 */
export class ChaosSocket {
  onFrame: FrameListener | undefined;
  /** Told once when the connection ends, whoever ended it (code 1006: no close frame, e.g. the server died). */
  onClose: ((code: number) => void) | undefined;
  readonly closed: Promise<number>;
  readonly #pending = new Map<string, { resolve: (frame: WireFrame) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  #nextId = 0;

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => {
      ws.once('close', (code: number) => {
        for (const pending of this.#pending.values()) {
          clearTimeout(pending.timer);
          pending.reject(new Error(`the connection closed (code ${code}) before the answer`));
        }
        this.#pending.clear();
        this.onClose?.(code);
        resolve(code);
      });
    });
    ws.on('message', (data: Buffer, isBinary: boolean) => this.#receive(isBinary ? `<binary ${data.length} bytes>` : data.toString('utf8')));
  }

  /** Open a connection and resolve once the server's `hello` arrived. */
  static connect(url: string, timeoutMs = 15_000): Promise<ChaosSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      const timer = setTimeout(() => fail(new Error(`no hello from ${url} within ${timeoutMs} ms`)), timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        ws.removeAllListeners('message');
        ws.on('error', () => undefined);
        ws.terminate();
        reject(error);
      };
      ws.once('error', fail);
      ws.once('close', (code: number) => fail(new Error(`closed with ${code} before hello`)));
      ws.once('message', (data: Buffer) => {
        clearTimeout(timer);
        ws.off('error', fail);
        ws.removeAllListeners('close');
        // Errors after hello end in 'close', which is what the run watches.
        ws.on('error', () => undefined);
        if (readFrame(data.toString('utf8'))?.type !== 'hello') {
          fail(new Error(`expected hello first, got ${data.toString('utf8').slice(0, 120)}`));
          return;
        }
        resolve(new ChaosSocket(ws));
      });
    });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Send a request with a fresh `id`; resolves with its answer, rejects with `RequestRefused` on an `error`. */
  request(body: Record<string, unknown>, timeoutMs = 15_000): Promise<WireFrame> {
    const id = `c${++this.#nextId}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`no answer to ${String(body.type)} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      this.send({ ...body, id });
    });
  }

  send(body: Record<string, unknown>): void {
    if (this.open) this.ws.send(JSON.stringify(body));
  }

  /** Die without a close frame, as a crashed client or a pulled cable would. */
  kill(kind: KillKind): void {
    // ws keeps its TCP socket private; an RST needs the socket itself.
    const socket = (this.ws as unknown as { _socket?: Socket })._socket;
    if (kind === 'reset' && socket !== undefined && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
    else this.ws.terminate();
  }

  /** A polite close (the run is over for this connection). */
  close(): void {
    if (this.ws.readyState === WebSocket.CONNECTING || this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
    setTimeout(() => this.ws.terminate(), 2_000).unref();
  }

  #receive(raw: string): void {
    const frame = readFrame(raw);
    const pending = frame?.requestId === undefined ? undefined : this.#pending.get(frame.requestId);
    if (pending !== undefined && frame?.requestId !== undefined) {
      this.#pending.delete(frame.requestId);
      clearTimeout(pending.timer);
      if (frame.type === 'error') pending.reject(new RequestRefused(frame.code ?? '?', frame.message ?? ''));
      else pending.resolve(frame);
    }
    this.onFrame?.(raw, frame);
  }
}
