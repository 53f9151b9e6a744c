import type { Redis } from 'ioredis';
import type { ServedAgent, WorkersElsewhere } from '../agents/remote/index.js';
import { WORKERS_CHANNEL, type NodeBus } from './node-bus.js';
/** Set of the nodes that published remote agents (a node joining reads their keys). */
export const WORKER_NODES_KEY = 'it:worker-nodes';
/** String with a PX TTL: the remote agents a node's workers serve (JSON `ServedAgent[]`). */
export const workersKey = (nodeId: string): string => `it:workers:${nodeId}`;

/** What a node says of its workers. */
interface NodeWorkers {
  nodeId: string;
  agents: ServedAgent[];
}

/** The node's worker pool, as the directory sees it (`WorkerPool`). */
export interface LocalWorkers {
  served(): ServedAgent[];
  servesHere(name: string): boolean;
  know(name: string, description: string): void;
  join(elsewhere: WorkersElsewhere, onChange: () => void): void;
}

interface Seen {
  agents: Map<string, ServedAgent>;
  at: number;
}

/**
 * Which remote agents each cluster node's workers serve. A node publishes its own on every change
 * (a worker registered or left) and refreshes them every third of `ttlMs`; what a node stops
 * refreshing (it died) is forgotten after `ttlMs`. The node's worker pool lists every agent the
 * cluster serves, available while any node has a worker for it, and placement asks `nodeFor` where
 * a run of one may start.
 */
export class AgentDirectory implements WorkersElsewhere {
  readonly #others = new Map<string, Seen>();
  #timer: NodeJS.Timeout | undefined;
  #turn = 0;
  #stopped = false;
  /** Whether what this node published last named any agent. */
  #servedAny = false;

  private constructor(
    readonly nodeId: string,
    private readonly publisher: Redis,
    private readonly workers: LocalWorkers,
    private readonly ttlMs: number,
    private readonly report: (context: string, error: unknown) => void,
  ) {}

  /** Other nodes' messages arrive on `bus` (the workers channel); this node's go out with `publisher`. */
  static async open(options: {
    bus: NodeBus;
    publisher: Redis;
    workers: LocalWorkers;
    ttlMs: number;
    report: (context: string, error: unknown) => void;
  }): Promise<AgentDirectory> {
    const directory = new AgentDirectory(options.bus.nodeId, options.publisher, options.workers, options.ttlMs, options.report);
    options.bus.receiveWorkers((message) => directory.#receive(message));
    await directory.#load();
    options.workers.join(directory, () => void directory.#publish());
    // A node without workers says so once (when its last one leaves), not on every refresh.
    directory.#timer = setInterval(() => void (directory.#servedAny ? directory.#publish() : undefined), Math.max(50, Math.floor(options.ttlMs / 3)));
    directory.#timer.unref();
    return directory;
  }

  /** Whether a worker connected to another live node serves `name` (`WorkersElsewhere`). */
  serves(name: string): boolean {
    return this.#nodesServing(name).length > 0;
  }

  /** Whether any other live node has workers at all: if none has, placement needs to look nothing up. */
  get othersServe(): boolean {
    const now = Date.now();
    for (const seen of this.#others.values()) if (now - seen.at < this.ttlMs && seen.agents.size > 0) return true;
    return false;
  }

  /**
   * Where a run of `name` may start: undefined when any node may (an in-process agent, a remote
   * one no node has a worker for now) or when a worker here serves it; else a node whose workers
   * do, taking turns among several.
   */
  nodeFor(name: string): string | undefined {
    if (this.workers.servesHere(name)) return undefined;
    const nodes = this.#nodesServing(name);
    if (nodes.length === 0) return undefined;
    this.#turn = (this.#turn + 1) % nodes.length;
    return nodes[this.#turn];
  }

  /** Whether `nodeId` has a worker for `name` (this node included). */
  runsOn(nodeId: string, name: string): boolean {
    if (nodeId === this.nodeId) return this.workers.servesHere(name);
    return this.#nodesServing(name).includes(nodeId);
  }

  /** This node's workers are no longer offered: its key goes, and every node hears at once. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#timer);
    try {
      await this.publisher.multi().del(workersKey(this.nodeId)).srem(WORKER_NODES_KEY, this.nodeId).publish(WORKERS_CHANNEL, JSON.stringify({ nodeId: this.nodeId, agents: [] } satisfies NodeWorkers)).exec();
    } catch (error) {
      this.report('withdrawing the workers of this node failed', error);
    }
  }

  #nodesServing(name: string): string[] {
    const now = Date.now();
    const nodes: string[] = [];
    for (const [nodeId, seen] of this.#others) {
      if (now - seen.at >= this.ttlMs) this.#others.delete(nodeId);
      else if (seen.agents.has(name)) nodes.push(nodeId);
    }
    return nodes.sort();
  }

  /** What the nodes that were already up published (a node that died is gone with its key). */
  async #load(): Promise<void> {
    const nodes = (await this.publisher.smembers(WORKER_NODES_KEY)).filter((nodeId) => nodeId !== this.nodeId);
    if (nodes.length === 0) return;
    const values = await this.publisher.mget(nodes.map(workersKey));
    const gone: string[] = [];
    nodes.forEach((nodeId, index) => {
      const value = values[index];
      if (value === null || value === undefined) gone.push(nodeId);
      else this.#note({ nodeId, agents: JSON.parse(value) as ServedAgent[] });
    });
    if (gone.length > 0) await this.publisher.srem(WORKER_NODES_KEY, ...gone);
  }

  async #publish(): Promise<void> {
    if (this.#stopped) return;
    const agents = this.workers.served();
    this.#servedAny = agents.length > 0;
    const message = JSON.stringify({ nodeId: this.nodeId, agents } satisfies NodeWorkers);
    try {
      const write = this.publisher.multi();
      if (agents.length > 0) write.set(workersKey(this.nodeId), JSON.stringify(agents), 'PX', this.ttlMs).sadd(WORKER_NODES_KEY, this.nodeId);
      else write.del(workersKey(this.nodeId));
      await write.publish(WORKERS_CHANNEL, message).exec();
    } catch (error) {
      this.report('publishing the workers of this node failed', error);
    }
  }

  #receive(message: string): void {
    let parsed: NodeWorkers;
    try {
      parsed = JSON.parse(message) as NodeWorkers;
    } catch (error) {
      this.report(`a message on ${WORKERS_CHANNEL} is not JSON`, error);
      return;
    }
    if (parsed.nodeId !== this.nodeId) this.#note(parsed);
  }

  #note({ nodeId, agents }: NodeWorkers): void {
    if (agents.length === 0) {
      this.#others.delete(nodeId);
      return;
    }
    for (const agent of agents) this.workers.know(agent.name, agent.description);
    this.#others.set(nodeId, { agents: new Map(agents.map((agent) => [agent.name, agent])), at: Date.now() });
  }
}
