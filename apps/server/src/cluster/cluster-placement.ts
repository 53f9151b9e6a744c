import { SessionError, notFound } from '../core/session-error.js';
import { EventStoreError } from '../core/persistence/event-store.js';
import type { ClusterHealth } from '../core/session-service.js';
import type { Placement, RoutedCommand, ServeRouted, SessionPlacement } from '../core/ports/session-placement.js';
import type { AgentDirectory } from './agent-directory.js';
import type { NodeBus } from './node-bus.js';
import type { OwnedAppends } from './owned-appends.js';
import type { Ownership } from './ownership.js';
import type { Redis } from 'ioredis';
import type { EventStore } from '../core/persistence/event-store.js';

/**
 * Where sessions run in a cluster (the core's `SessionPlacement`): on the node that holds the
 * session's lease (`Ownership`), with commands for sessions other nodes hold routed to them over
 * the `NodeBus`. A node hands a session back once nothing runs it, so any node may take it next.
 *
 * A run of a remote agent starts on a node with a worker for it (`AgentDirectory`): a new session
 * is created there, and a command that may start a run of a session nobody holds is sent there to
 * claim it. A node holding a session whose agent it cannot run any more (its worker left) hands it
 * over to one that can.
 */
export class ClusterPlacement implements SessionPlacement {
  readonly handsBack = true;

  constructor(
    private readonly ownership: Ownership,
    private readonly bus: NodeBus,
    private readonly store: Pick<EventStore, 'getSession'>,
    /** The node's Redis connection (leases, bus, channel publishes), for health. */
    private readonly redis: Redis,
    private readonly appends: OwnedAppends,
    private readonly agents: AgentDirectory,
    readonly takeoverWaitMs: number,
  ) {}

  async claim(sessionId: string, options: { takeover?: boolean; startsRun?: boolean } = {}): Promise<Placement> {
    try {
      const elsewhere = options.startsRun === true && options.takeover !== true ? await this.#runsElsewhere(sessionId) : undefined;
      if (elsewhere !== undefined) {
        const holder = this.ownership.holds(sessionId) ? this.ownership.nodeId : (await this.ownership.holder(sessionId))?.nodeId;
        // Nobody holds it: the node with the worker takes it. This node holds it: it hands it over.
        if (holder === undefined) return { here: false, nodeId: elsewhere };
        if (holder === this.ownership.nodeId) return { here: false, nodeId: elsewhere, handOver: true };
        // Another node holds it: the command goes there, which hands it over if it cannot run it.
        return { here: false, nodeId: holder };
      }
      const claim = await this.ownership.claim(sessionId, options.takeover === undefined ? {} : { takeover: options.takeover });
      return claim.here ? { here: true } : { here: false, nodeId: claim.holder.nodeId };
    } catch (error) {
      if (error instanceof EventStoreError && error.code === 'SESSION_NOT_FOUND') throw new SessionError('SESSION_NOT_FOUND', error.message);
      throw error;
    }
  }

  placeNew(agent: string): Placement {
    const nodeId = this.agents.nodeFor(agent);
    return nodeId === undefined ? { here: true } : { here: false, nodeId };
  }

  /**
   * The node a run of the session's agent should start on, when this one has no worker for it and
   * another has; undefined otherwise. Nothing is read while no other node has workers at all.
   */
  async #runsElsewhere(sessionId: string): Promise<string | undefined> {
    if (!this.agents.othersServe) return undefined;
    const record = await this.store.getSession(sessionId);
    if (record === undefined) throw notFound(sessionId);
    return this.agents.nodeFor(record.info.agent);
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
    if (release) await Promise.all([this.bus.close(), this.agents.stop()]);
  }

  health(): ClusterHealth {
    return {
      nodeId: this.ownership.nodeId,
      redis: this.redis.status === 'ready' ? 'ready' : 'reconnecting',
      ...this.ownership.stats,
      fencedAppends: this.appends.fencedAppends,
      routedCommands: this.bus.stats.routed,
      servedCommands: this.bus.stats.served,
      followedSessions: 0,
    };
  }
}
