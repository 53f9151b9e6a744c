import type { AgentServerMessage, AgentServerMessageType } from '@interthought/protocol';
import WebSocket from 'ws';

export type AgentFrameOf<T extends AgentServerMessageType> = Extract<AgentServerMessage, { type: T }>;
export const WORKER_TOKEN = 's3cret';

/** A raw `ws` client playing an agent worker: records every frame, waits for one, sends any. */
export class TestWorker {
  readonly frames: AgentServerMessage[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly #waiters = new Set<{ predicate: (frame: AgentServerMessage) => boolean; resolve: (frame: AgentServerMessage) => void }>();

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as AgentServerMessage;
      this.frames.push(frame);
      for (const waiter of this.#waiters) {
        if (waiter.predicate(frame)) {
          this.#waiters.delete(waiter);
          waiter.resolve(frame);
        }
      }
    });
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    socket.on('error', () => undefined);
  }

  /** Connect to `/ws/agents` of a server at `baseUrl` (http://…) and wait for `hello`. */
  static async connect(baseUrl: string, token: string | null = WORKER_TOKEN): Promise<TestWorker> {
    const socket = new WebSocket(`${baseUrl.replace(/^http/u, 'ws')}/ws/agents`, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
    const worker = new TestWorker(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    await worker.waitForType('hello');
    return worker;
  }

  /** Connect and register `name`; resolves with `agent.registered`. */
  static async serving(baseUrl: string, name: string, description = `${name}, served by a test worker`): Promise<TestWorker> {
    const worker = await TestWorker.connect(baseUrl);
    worker.send({ type: 'agent.register', id: 'reg', agents: [{ name, description }] });
    await worker.waitForType('agent.registered');
    return worker;
  }

  send(frame: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** Send `frames` in one TCP write (the socket corked around them), so the server reads them at once. */
  sendTogether(frames: ReadonlyArray<Record<string, unknown>>): void {
    const tcp = (this.socket as unknown as { _socket: { cork(): void; uncork(): void } })._socket;
    tcp.cork();
    for (const frame of frames) this.send(frame);
    tcp.uncork();
  }

  sendRaw(data: string | Buffer, binary = false): void {
    this.socket.send(data, { binary });
  }

  waitFor(predicate: (frame: AgentServerMessage) => boolean, what = 'a matching frame', timeoutMs = 8_000): Promise<AgentServerMessage> {
    const seen = this.frames.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`Timed out waiting for ${what}; last frames:\n${this.frames.slice(-5).map((f) => JSON.stringify(f).slice(0, 300)).join('\n')}`));
      }, timeoutMs);
      const waiter = {
        predicate,
        resolve: (frame: AgentServerMessage) => {
          clearTimeout(timer);
          resolve(frame);
        },
      };
      this.#waiters.add(waiter);
    });
  }

  async waitForType<T extends AgentServerMessageType>(type: T, where: (frame: AgentFrameOf<T>) => boolean = () => true): Promise<AgentFrameOf<T>> {
    return (await this.waitFor((f) => f.type === type && where(f as AgentFrameOf<T>), `a ${type} frame`)) as AgentFrameOf<T>;
  }

  /** The `run.start` frames received so far. */
  runStarts(): AgentFrameOf<'run.start'>[] {
    return this.frames.filter((frame): frame is AgentFrameOf<'run.start'> => frame.type === 'run.start');
  }

  /** Wait for the `count`-th `run.start` (1-based). */
  nthRunStart(count: number): Promise<AgentFrameOf<'run.start'>> {
    return this.waitFor(() => this.runStarts().length >= count, `run.start #${count}`).then(() => this.runStarts()[count - 1]!);
  }

  /** Write a whole step: start, deltas, end. */
  step(runId: string, ref: string, kind: string, text: string, extra: { tool?: string; result?: unknown } = {}): void {
    this.send({ type: 'step.start', runId, ref, kind, ...(extra.tool === undefined ? {} : { tool: extra.tool }) });
    for (const piece of text.match(/\S+\s*/gu) ?? [text]) this.send({ type: 'step.delta', runId, ref, text: piece });
    this.send({ type: 'step.end', runId, ref, ...(extra.result === undefined ? {} : { result: extra.result }) });
  }

  close(): void {
    this.socket.close();
  }

  terminate(): void {
    this.socket.terminate();
  }
}
