import { nanoid } from 'nanoid';
import type { Redis } from 'ioredis';
import type { ErrorCode } from '@interthought/protocol';
import { connectRedis, quitRedis, type RedisTarget } from './redis-connection.js';

/** The list of sessions changed (a `sessions.changed` / `sessions.removed` frame), for every node's watchers. */
export const LIST_CHANNEL = 'it:list';

const rpcChannel = (nodeId: string): string => `it:node:${nodeId}:rpc`;
const replyChannel = (nodeId: string): string => `it:node:${nodeId}:reply`;

/** A command a node sends to the owner of a session. */
export interface RoutedCommand {
  op: 'correct' | 'pause' | 'resume' | 'cancel' | 'delete';
  sessionId: string;
  /** The correction, for `correct`. */
  input?: unknown;
  /** The requester, as the owner's core sees it (its quota, its id as `correction.by`). */
  peer: { id: string; owner?: string };
  requestId?: string;
}

interface RoutedRequest extends RoutedCommand {
  rid: string;
  from: string;
}

type Reply = { rid: string; frame: string } | { rid: string; done: true; result?: unknown } | { rid: string; error: { code: ErrorCode | 'NOT_OWNER'; message: string } };

/** How a routed command ended on the owner. */
export class RoutedCommandError extends Error {
  constructor(
    readonly code: ErrorCode | 'NOT_OWNER' | 'NO_ANSWER',
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  onFrame: (frame: string) => void;
  resolve: (result: unknown) => void;
  reject: (error: RoutedCommandError) => void;
  timer: NodeJS.Timeout;
}

/** What the owner side does with a routed command: frames for the requester go out through `send`. */
export type CommandHandler = (command: RoutedCommand, send: (frame: string) => void) => Promise<unknown>;

/**
 * Node-to-node messages over plain pub/sub: each node listens on its own rpc and reply channels
 * and on the list channel. A command for a session another node owns is published on that node's
 * rpc channel; the owner runs it and publishes the requester's frames (`correction.accepted`, the
 * status event with `requestId` …) and then the outcome on the requester's reply channel.
 *
 * Published with the store's own connection, so on the owner a requester's frame sent in the
 * same turn as the events it precedes leaves before the append that publishes them.
 */
export class NodeBus {
  readonly #pending = new Map<string, Pending>();
  #handler: CommandHandler | undefined;
  #routed = 0;
  #served = 0;

  private constructor(
    readonly nodeId: string,
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly onList: (frame: string) => void,
    private readonly report: (context: string, error: unknown) => void,
    private readonly answerMs: number,
  ) {
    subscriber.on('message', (channel: string, message: string) => this.#receive(channel, message));
    subscriber.on('error', () => {});
  }

  static async open(options: {
    target: RedisTarget;
    nodeId: string;
    publisher: Redis;
    onList: (frame: string) => void;
    report: (context: string, error: unknown) => void;
    answerMs: number;
  }): Promise<NodeBus> {
    const subscriber = await connectRedis(options.target, { connectionName: `interthought-bus-${options.nodeId}` });
    const bus = new NodeBus(options.nodeId, options.publisher, subscriber, options.onList, options.report, options.answerMs);
    await subscriber.subscribe(rpcChannel(options.nodeId), replyChannel(options.nodeId), LIST_CHANNEL);
    return bus;
  }

  get stats(): { routed: number; served: number } {
    return { routed: this.#routed, served: this.#served };
  }

  /** Run commands other nodes route here. */
  serve(handler: CommandHandler): void {
    this.#handler = handler;
  }

  /** Tell every node's list watchers. */
  async publishList(frame: string): Promise<void> {
    await this.publisher.publish(LIST_CHANNEL, frame);
  }

  /**
   * Send a command to `nodeId` and wait for its outcome; each frame for the requester reaches
   * `onFrame` first, in order. `NO_ANSWER` when no node listens there or it stays silent.
   */
  async call(nodeId: string, command: RoutedCommand, onFrame: (frame: string) => void): Promise<unknown> {
    const rid = nanoid();
    const request: RoutedRequest = { ...command, rid, from: this.nodeId };
    const outcome = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(rid);
        reject(new RoutedCommandError('NO_ANSWER', `Node ${nodeId} did not answer within ${this.answerMs} ms.`));
      }, this.answerMs);
      this.#pending.set(rid, { onFrame, resolve, reject, timer });
    });
    this.#routed += 1;
    const listeners = await this.publisher.publish(rpcChannel(nodeId), JSON.stringify(request));
    if (listeners === 0) this.#settle(rid, { rid, error: { code: 'NOT_OWNER', message: `Node ${nodeId} is not listening (it stopped or died).` } });
    return outcome;
  }

  async close(): Promise<void> {
    for (const [rid] of this.#pending) this.#settle(rid, { rid, error: { code: 'INTERNAL', message: 'This node is shutting down.' } });
    await quitRedis(this.subscriber);
  }

  #receive(channel: string, message: string): void {
    if (channel === LIST_CHANNEL) {
      this.onList(message);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch (error) {
      this.report(`a message on ${channel} is not JSON`, error);
      return;
    }
    if (channel === replyChannel(this.nodeId)) this.#onReply(parsed as Reply);
    else void this.#onRequest(parsed as RoutedRequest);
  }

  #onReply(reply: Reply): void {
    const pending = this.#pending.get(reply.rid);
    if (pending === undefined) return;
    if ('frame' in reply) {
      pending.onFrame(reply.frame);
      return;
    }
    this.#settle(reply.rid, reply);
  }

  #settle(rid: string, reply: Reply): void {
    const pending = this.#pending.get(rid);
    if (pending === undefined) return;
    this.#pending.delete(rid);
    clearTimeout(pending.timer);
    if ('error' in reply) pending.reject(new RoutedCommandError(reply.error.code, reply.error.message));
    else if ('done' in reply) pending.resolve(reply.result);
  }

  async #onRequest(request: RoutedRequest): Promise<void> {
    const to = replyChannel(request.from);
    const publish = (reply: Reply): void => {
      this.publisher.publish(to, JSON.stringify(reply)).catch((error: unknown) => this.report(`answering node ${request.from} failed`, error));
    };
    if (this.#handler === undefined) {
      publish({ rid: request.rid, error: { code: 'NOT_OWNER', message: 'This node runs no sessions yet.' } });
      return;
    }
    this.#served += 1;
    try {
      const result = await this.#handler(request, (frame) => publish({ rid: request.rid, frame }));
      publish({ rid: request.rid, done: true, result });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      publish({
        rid: request.rid,
        error: { code: typeof code === 'string' ? (code as ErrorCode) : 'INTERNAL', message: error instanceof Error ? error.message : String(error) },
      });
    }
  }
}
