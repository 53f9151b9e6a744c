import type { Redis } from 'ioredis';
import { decodeBatchMessage } from './batch-message.js';
import { connectRedis, quitRedis, type RedisTarget } from './redis-connection.js';
import { sessionIdOfChannel, sessionKeys } from './redis-keys.js';

export interface SessionChannelHandlers {
  /** A batch appended to a watched session: its frames in seq order, the first at `firstSeq`. */
  onBatch(sessionId: string, frames: string[], firstSeq: number): void;
  /**
   * The subscription connection dropped: batches published until `onResubscribed` are lost, and
   * batches may arrive with a gap before it. Refill every watched session from the log.
   */
  onConnectionLost?(): void;
  /** Every watched session is subscribed again after a lost connection: refill each from its last delivered seq. */
  onResubscribed?(sessionIds: readonly string[]): void;
  /** A message that is not a batch, or a failed resubscription (retried on the next reconnect). */
  onError?(error: Error): void;
}

/**
 * The pub/sub side of cluster mode: one connection of its own (a subscribed connection cannot
 * send other commands) that watches sessions' channels (`it:{S}:ev`, sharded pub/sub, so it
 * keeps working on Redis Cluster) and hands each published batch, decoded, to `onBatch`.
 *
 * Pub/sub delivers at most once: a batch published while the connection is down is gone. So
 * the channel resubscribes itself after a reconnect (ioredis' autoResubscribe is off, because it
 * would not say when it is done) and then reports `onResubscribed`; the log is the truth to
 * refill from, and a watcher that subscribes first and reads the log second misses nothing.
 */
export class SessionChannel {
  readonly #redis: Redis;
  #handlers: SessionChannelHandlers;
  readonly #sessions = new Set<string>();
  #lost = false;
  #closing = false;

  private constructor(redis: Redis, handlers: SessionChannelHandlers) {
    this.#redis = redis;
    this.#handlers = handlers;
    redis.on('smessage', (channel: string, message: string) => this.#deliver(channel, message));
    redis.on('close', () => this.#connectionLost());
    redis.on('ready', () => void this.#resubscribe());
    // Connection errors are followed by 'close' and a reconnect; without a listener ioredis logs them.
    redis.on('error', () => {});
  }

  /** Connect a channel to Redis at `target`. */
  /** Open the channel; batches go to `handlers`, or nowhere until a listener takes them (`listen`). */
  static async open(target: RedisTarget, handlers: SessionChannelHandlers = { onBatch: () => undefined }): Promise<SessionChannel> {
    // Subscriptions wait for Redis however long it is down, instead of failing after some retries.
    const redis = await connectRedis(target, { autoResubscribe: false, maxRetriesPerRequest: null, connectionName: 'interthought-channel' });
    return new SessionChannel(redis, handlers);
  }

  /** The sessions watched now. */
  /** Where batches go from now on: the one consumer of this channel (a node's fan-out) sets itself here as it is built. */
  listen(handlers: SessionChannelHandlers): void {
    this.#handlers = handlers;
  }

  get sessionIds(): ReadonlySet<string> {
    return this.#sessions;
  }

  /** Watch a session; resolves once Redis confirmed, so every batch appended after that arrives. */
  async subscribe(sessionId: string): Promise<void> {
    this.#sessions.add(sessionId);
    await this.#redis.ssubscribe(sessionKeys(sessionId).channel);
  }

  async unsubscribe(sessionId: string): Promise<void> {
    if (!this.#sessions.delete(sessionId)) return;
    await this.#redis.sunsubscribe(sessionKeys(sessionId).channel);
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#sessions.clear();
    await quitRedis(this.#redis);
  }

  #deliver(channel: string, message: string): void {
    const sessionId = sessionIdOfChannel(channel);
    const batch = decodeBatchMessage(message);
    if (sessionId === undefined || batch === undefined) {
      this.#handlers.onError?.(new Error(`Channel ${channel} carried something that is not a batch: ${message.slice(0, 80)}`));
      return;
    }
    if (this.#sessions.has(sessionId)) this.#handlers.onBatch(sessionId, batch.frames, batch.firstSeq);
  }

  #connectionLost(): void {
    if (this.#closing || this.#lost) return;
    this.#lost = true;
    this.#handlers.onConnectionLost?.();
  }

  async #resubscribe(): Promise<void> {
    if (!this.#lost || this.#closing) return;
    this.#lost = false;
    const sessionIds = [...this.#sessions];
    try {
      await Promise.all(sessionIds.map((sessionId) => this.#redis.ssubscribe(sessionKeys(sessionId).channel)));
    } catch (error) {
      // The connection dropped again: 'close' marks it lost, and the next 'ready' retries.
      this.#handlers.onError?.(error as Error);
      return;
    }
    this.#handlers.onResubscribed?.(sessionIds);
  }
}
