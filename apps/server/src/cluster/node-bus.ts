import { nanoid } from 'nanoid';
import type { Redis } from 'ioredis';
import type { ErrorCode } from '@interthought/protocol';
import { connectRedis, quitRedis, type RedisTarget } from './redis-connection.js';
import { RouteError, type RoutedCommand, type ServeRouted } from '../core/ports/session-placement.js';
import type { ListChange, ListRelay } from '../core/ports/list-relay.js';

/** The list of sessions changed (a `sessions.changed` / `sessions.removed` frame), for every node's watchers. */
export const LIST_CHANNEL = 'it:list';
/** The remote agents a node's workers serve changed, or are refreshed (see `AgentDirectory`). */
export const WORKERS_CHANNEL = 'it:workers';

const rpcChannel = (nodeId: string): string => `it:node:${nodeId}:rpc`;
const replyChannel = (nodeId: string): string => `it:node:${nodeId}:reply`;

interface RoutedRequest extends RoutedCommand {
  rid: string;
  from: string;
}

/** `n` numbers the replies to one request, so a requester drops the copies a resent request's answer repeats. */
type Reply = { rid: string; n: number } & ({ frame: string } | { done: true; result?: unknown } | { error: { code: ErrorCode | 'NOT_OWNER'; message: string } });
type ReplyBody = Reply extends infer R ? (R extends unknown ? Omit<R, 'n'> : never) : never;

/**
 * A request unanswered after `answerMs` is sent again, this many times, before the requester
 * gives up: a request published while the owner's bus was reconnecting is lost, and an owner
 * stalled for a moment answers late. The owner runs each request once (see `#answers`).
 */
const RESENDS = 2;
/** How long an owner keeps a request's answer to send again for a resend of it. */
const ANSWER_KEPT_MS = 60_000;

interface Pending {
  onFrame: (frame: string) => void;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout | undefined;
  /** The `n` of the next reply expected. */
  next: number;
}

/** A request this node served: its replies so far, to send again if it is resent. */
interface Answered {
  replies: Reply[];
  finished: Promise<void>;
  at: number;
}

/**
 * Node-to-node messages over plain pub/sub: each node listens on its own rpc and reply channels
 * and on the list and workers channels. A command for a session another node owns is published on that node's
 * rpc channel; the owner runs it and publishes the requester's frames (`correction.accepted`, the
 * status event with `requestId` …) and then the outcome on the requester's reply channel.
 *
 * Published with the store's own connection, so on the owner a requester's frame sent in the
 * same turn as the events it precedes leaves before the append that publishes them.
 */
export class NodeBus implements ListRelay {
  readonly #pending = new Map<string, Pending>();
  /** Requests served here lately, by requester and request id: a resent one is answered, not run again. */
  readonly #answers = new Map<string, Answered>();
  #handler: ServeRouted | undefined;
  #onList: ((change: ListChange, frame: string) => void) | undefined;
  #onWorkers: ((message: string) => void) | undefined;
  #routed = 0;
  #served = 0;

  private constructor(
    readonly nodeId: string,
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
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
    report: (context: string, error: unknown) => void;
    answerMs: number;
  }): Promise<NodeBus> {
    const subscriber = await connectRedis(options.target, { connectionName: `interthought-bus-${options.nodeId}` });
    const bus = new NodeBus(options.nodeId, options.publisher, subscriber, options.report, options.answerMs);
    await subscriber.subscribe(rpcChannel(options.nodeId), replyChannel(options.nodeId), LIST_CHANNEL, WORKERS_CHANNEL);
    return bus;
  }

  get stats(): { routed: number; served: number } {
    return { routed: this.#routed, served: this.#served };
  }

  /** Run commands other nodes route here. */
  serve(handler: ServeRouted): void {
    this.#handler = handler;
  }

  /** Tell every node's list watchers, this node's included (`ListRelay`). */
  publish(change: ListChange): void {
    this.publisher.publish(LIST_CHANNEL, JSON.stringify(change)).catch((error: unknown) => this.report('publishing a list change failed', error));
  }

  /** Where list changes published by any node go (`ListRelay`); set once. */
  receive(listener: (change: ListChange, frame: string) => void): void {
    this.#onList = listener;
  }

  /** Where what nodes publish on `WORKERS_CHANNEL` goes; set once. */
  receiveWorkers(listener: (message: string) => void): void {
    this.#onWorkers = listener;
  }

  /**
   * Send a command to `nodeId` and wait for its outcome; each frame for the requester reaches
   * `onFrame` first, in order, once. `NOT_OWNER` when no node listens there (it did not run the
   * command); `NO_ANSWER` when it stays silent through every resend (it may have run it).
   */
  async call(nodeId: string, command: RoutedCommand, onFrame: (frame: string) => void): Promise<unknown> {
    const rid = nanoid();
    const message = JSON.stringify({ ...command, rid, from: this.nodeId } satisfies RoutedRequest);
    const outcome = new Promise<unknown>((resolve, reject) => this.#pending.set(rid, { onFrame, resolve, reject, timer: undefined, next: 0 }));
    // It may fail (a shutdown, a publish error) while the send below is still awaited, before the
    // caller holds it: marked handled here so that is no unhandled rejection; the caller still gets it.
    outcome.catch(() => undefined);
    this.#routed += 1;
    await this.#send(nodeId, rid, message, 0);
    return outcome;
  }

  async #send(nodeId: string, rid: string, message: string, resends: number): Promise<void> {
    let listeners: number;
    try {
      listeners = await this.publisher.publish(rpcChannel(nodeId), message);
    } catch (error) {
      this.#fail(rid, error);
      return;
    }
    if (listeners === 0) {
      this.#fail(rid, new RouteError('NOT_OWNER', `Node ${nodeId} is not listening (it stopped or died).`));
      return;
    }
    const pending = this.#pending.get(rid);
    if (pending === undefined) return;
    clearTimeout(pending.timer);
    pending.timer = setTimeout(() => {
      if (resends < RESENDS) {
        void this.#send(nodeId, rid, message, resends + 1);
        return;
      }
      const waited = this.answerMs * (RESENDS + 1);
      this.#fail(rid, new RouteError('NO_ANSWER', `Node ${nodeId} did not answer within ${waited} ms; it may have carried the request out.`));
    }, this.answerMs);
  }

  async close(): Promise<void> {
    for (const [rid] of this.#pending) this.#fail(rid, new RouteError('INTERNAL', 'This node is shutting down.'));
    await quitRedis(this.subscriber);
  }

  #receive(channel: string, message: string): void {
    if (channel === LIST_CHANNEL) {
      this.#receiveList(message);
      return;
    }
    if (channel === WORKERS_CHANNEL) {
      this.#onWorkers?.(message);
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

  #receiveList(frame: string): void {
    if (this.#onList === undefined) return;
    let change: ListChange;
    try {
      change = JSON.parse(frame) as ListChange;
    } catch (error) {
      this.report(`a message on ${LIST_CHANNEL} is not JSON`, error);
      return;
    }
    this.#onList(change, frame);
  }

  #onReply(reply: Reply): void {
    const pending = this.#pending.get(reply.rid);
    // Gone (settled, or given up), or a copy the owner sent again for a resend of the request.
    if (pending === undefined || reply.n < pending.next) return;
    pending.next = reply.n + 1;
    if ('frame' in reply) {
      pending.onFrame(reply.frame);
      return;
    }
    this.#pending.delete(reply.rid);
    clearTimeout(pending.timer);
    if ('error' in reply) pending.reject(new RouteError(reply.error.code, reply.error.message));
    else pending.resolve(reply.result);
  }

  #fail(rid: string, error: unknown): void {
    const pending = this.#pending.get(rid);
    if (pending === undefined) return;
    this.#pending.delete(rid);
    clearTimeout(pending.timer);
    pending.reject(error);
  }

  async #onRequest(request: RoutedRequest): Promise<void> {
    const to = replyChannel(request.from);
    const publish = (reply: Reply): void => {
      this.publisher.publish(to, JSON.stringify(reply)).catch((error: unknown) => this.report(`answering node ${request.from} failed`, error));
    };
    if (this.#handler === undefined) {
      publish({ rid: request.rid, n: 0, error: { code: 'NOT_OWNER', message: 'This node runs no sessions yet.' } });
      return;
    }
    const key = `${request.from}\n${request.rid}`;
    const earlier = this.#answers.get(key);
    if (earlier !== undefined) {
      // Resent because the answer was late or lost: it is not run twice; its answer goes again once complete.
      await earlier.finished;
      for (const reply of earlier.replies) publish(reply);
      return;
    }
    this.#forgetOldAnswers();
    let finish: () => void = () => undefined;
    const answered: Answered = { replies: [], finished: new Promise((resolve) => (finish = resolve)), at: Date.now() };
    this.#answers.set(key, answered);
    const answer = (body: ReplyBody): void => {
      const reply = { ...body, n: answered.replies.length } as Reply;
      answered.replies.push(reply);
      publish(reply);
    };
    this.#served += 1;
    try {
      const result = await this.#handler(request, (frame) => answer({ rid: request.rid, frame }));
      answer({ rid: request.rid, done: true, result });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      answer({
        rid: request.rid,
        error: { code: typeof code === 'string' ? (code as ErrorCode) : 'INTERNAL', message: error instanceof Error ? error.message : String(error) },
      });
    } finally {
      finish();
    }
  }

  #forgetOldAnswers(): void {
    const before = Date.now() - ANSWER_KEPT_MS;
    for (const [key, answered] of this.#answers) {
      if (answered.at >= before) break;
      this.#answers.delete(key);
    }
  }
}
