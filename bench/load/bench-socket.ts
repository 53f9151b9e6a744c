import WebSocket from 'ws';
import { isDeltaFrame, parseControlFrame, type ControlFrame } from './frame-reader.js';

/** How long a request may wait for its answer before the run is declared broken. */
const ANSWER_TIMEOUT_MS = 30_000;
const HELLO_TIMEOUT_MS = 30_000;

interface PendingAnswer {
  resolve: (frame: ControlFrame) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** A refused request (an `error` frame answering it). */
export class RequestRefused extends Error {
  override readonly name = 'RequestRefused';
  constructor(readonly code: string, message: string) {
    super(`${code}: ${message}`);
  }
}

/**
 * One load-generator connection. Deltas go to `onDelta` as raw bytes (the hot path); every
 * other frame is parsed, answers settle the matching `request`, and events go to `onControl`.
 * Handlers must be set before the request that causes their frames: several frames of one TCP
 * read are delivered before any awaiting code resumes.
 */
export class BenchSocket {
  onDelta: ((frame: Buffer) => void) | undefined;
  onControl: ((frame: ControlFrame) => void) | undefined;
  /** Error frames received, by code. */
  readonly errors: Record<string, number> = {};
  /** The close code, when the server closed the connection (e.g. 4008 "slow consumer"). */
  closedByServer: number | undefined;
  /** Told when the server closes the connection. */
  onServerClose: ((code: number) => void) | undefined;
  readonly #pending = new Map<string, PendingAnswer>();
  #nextRequest = 0;
  #closing = false;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => this.#receive(data));
    ws.on('close', (code: number) => {
      this.#failPending(new Error(`The connection closed (code ${code}) before the answer arrived.`));
      if (this.#closing) return;
      this.closedByServer = code;
      this.onServerClose?.(code);
    });
  }

  /** Open a connection and resolve once the server's first frame (`hello`) arrived. */
  static connect(url: string): Promise<BenchSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      const timer = setTimeout(() => fail(new Error(`No hello from ${url} within ${HELLO_TIMEOUT_MS} ms.`)), HELLO_TIMEOUT_MS);
      const fail = (error: Error) => {
        clearTimeout(timer);
        ws.terminate();
        reject(error);
      };
      ws.once('error', fail);
      ws.once('message', (data: Buffer) => {
        clearTimeout(timer);
        ws.off('error', fail);
        ws.on('error', () => undefined);
        const hello = parseControlFrame(data);
        if (hello?.type !== 'hello') {
          ws.terminate();
          reject(new Error(`Expected hello as the first frame, got ${data.toString('utf8').slice(0, 120)}`));
          return;
        }
        resolve(new BenchSocket(ws));
      });
    });
  }

  /** Send a request with a fresh `id`; resolves with its answer, rejects with `RequestRefused` for an error frame. */
  request(body: Record<string, unknown>, timeoutMs = ANSWER_TIMEOUT_MS): Promise<ControlFrame> {
    const id = `r${++this.#nextRequest}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`No answer to ${String(body.type)} within ${timeoutMs} ms.`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      this.send({ ...body, id });
    });
  }

  send(body: Record<string, unknown>): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(body));
  }

  /** Stop reading at the TCP level: the server's frames pile up in its buffers, as with a stalled client. */
  stall(): void {
    this.ws.pause();
  }

  close(): void {
    this.#closing = true;
    this.ws.terminate();
  }

  #receive(data: Buffer): void {
    if (this.onDelta !== undefined && isDeltaFrame(data)) {
      this.onDelta(data);
      return;
    }
    const frame = parseControlFrame(data);
    if (frame === undefined) return;
    if (frame.type === 'error') this.errors[frame.code ?? 'UNKNOWN'] = (this.errors[frame.code ?? 'UNKNOWN'] ?? 0) + 1;
    const pending = frame.requestId === undefined ? undefined : this.#pending.get(frame.requestId);
    if (pending !== undefined && frame.requestId !== undefined) {
      this.#pending.delete(frame.requestId);
      clearTimeout(pending.timer);
      if (frame.type === 'error') pending.reject(new RequestRefused(frame.code ?? 'UNKNOWN', frame.message ?? ''));
      else pending.resolve(frame);
    }
    this.onControl?.(frame);
  }

  #failPending(error: Error): void {
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.#pending.clear();
  }
}

/** Open `count` connections, at most `concurrency` handshakes at a time. */
export async function connectMany(url: string, count: number, concurrency = 200): Promise<BenchSocket[]> {
  const sockets: BenchSocket[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      sockets.push(await BenchSocket.connect(url));
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  } catch (error) {
    for (const socket of sockets) socket.close();
    throw error;
  }
  return sockets;
}

/** Close codes of the connections the server closed, by code. */
export function serverCloses(sockets: readonly BenchSocket[]): Record<string, number> {
  const closes: Record<string, number> = {};
  for (const socket of sockets) {
    if (socket.closedByServer !== undefined) closes[socket.closedByServer] = (closes[socket.closedByServer] ?? 0) + 1;
  }
  return closes;
}

/** Merge error counts of many sockets. */
export function mergeErrors(sockets: readonly BenchSocket[], into: Record<string, number> = {}): Record<string, number> {
  for (const socket of sockets) {
    for (const [code, count] of Object.entries(socket.errors)) into[code] = (into[code] ?? 0) + count;
  }
  return into;
}
