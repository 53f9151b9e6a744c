import { SessionError } from '../core/session-error.js';
import { EventStoreError } from '../core/persistence/event-store.js';
import type { ClusterHealth } from '../core/session-service.js';
import type { Placement, RoutedCommand, ServeRouted, SessionPlacement } from '../core/ports/session-placement.js';
import type { NodeBus } from './node-bus.js';
import type { OwnedAppends } from './owned-appends.js';
import type { Ownership } from './ownership.js';
import type { RedisEventStore } from './redis-event-store.js';

/**
 * Where sessions run in a cluster (the core's `SessionPlacement`): on the node that holds the
 * session's lease (`Ownership`), with commands for sessions other nodes hold routed to them over
 * the `NodeBus`. A node hands a session back once nothing runs it, so any node may take it next.
 */
export class ClusterPlacement implements SessionPlacement {
  readonly handsBack = true;

  constructor(
    private readonly ownership: Ownership,
    private readonly bus: NodeBus,
    private readonly store: RedisEventStore,
    private readonly appends: OwnedAppends,
    readonly takeoverWaitMs: number,
  ) {}

  async claim(sessionId: string, options?: { takeover?: boolean }): Promise<Placement> {
    try {
      const claim = await this.ownership.claim(sessionId, options);
      return claim.here ? { here: true } : { here: false, nodeId: claim.holder.nodeId };
    } catch (error) {
      if (error instanceof EventStoreError && error.code === 'SESSION_NOT_FOUND') throw new SessionError('SESSION_NOT_FOUND', error.message);
      throw error;
    }
  }

  holds(sessionId: string): boolean {
    return this.ownership.holds(sessionId);
  }

  release(sessionId: string): Promise<void> {
    return this.ownership.release(sessionId);
  }

  route(nodeId: string, command: RoutedCommand, onFrame: (frame: string) => void): Promise<unknown> {
    return this.bus.call(nodeId, command, onFrame);
  }

  /** Commands routed here are served, and ownership starts renewing and sweeping, reporting to the core. */
  serve(handlers: { routed: ServeRouted; lost: (sessionId: string) => void; orphaned: (sessionId: string) => void }): void {
    this.bus.serve(handlers.routed);
    this.ownership.start({ lost: handlers.lost, orphaned: handlers.orphaned });
  }

  async stop({ release }: { release: boolean }): Promise<void> {
    await this.ownership.stop({ release });
    if (release) await this.bus.close();
  }

  health(): ClusterHealth {
    return {
      nodeId: this.ownership.nodeId,
      redis: this.store.redis.status === 'ready' ? 'ready' : 'reconnecting',
      ...this.ownership.stats,
      fencedAppends: this.appends.fencedAppends,
      routedCommands: this.bus.stats.routed,
      servedCommands: this.bus.stats.served,
      followedSessions: 0,
    };
  }
}
