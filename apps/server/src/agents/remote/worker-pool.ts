import { AGENT_FIELD_LIMITS, type WorkerAgent } from '@interthought/protocol';
import type { AgentAvailability, AgentRegistry } from '@interthought/agent';
import { DeclaredRemoteAgent, NO_WORKER_REASON, NO_WORKER_REASONS } from './declared-remote-agent.js';
import { RemoteAgent } from './remote-agent.js';
import { WorkerFrameError } from './worker-frame-error.js';
import type { WorkerConnection } from './worker-connection.js';

export { NO_WORKER_REASON };

/** A remote agent this process's workers serve: what other cluster nodes learn of it. */
export interface ServedAgent {
  name: string;
  description: string;
  /** Workers connected here that serve it. */
  workers: number;
}

/** Which remote agents other processes' workers serve (a cluster's directory); absent: only this process's workers count. */
export interface WorkersElsewhere {
  serves(name: string): boolean;
}

/**
 * The connected workers, by the agent names they serve, and the remote agents those names are in
 * the server's agent registry (PROTOCOL.md Part II §A4, §A10). A run goes to the least busy worker.
 */
export class WorkerPool {
  readonly #registry: AgentRegistry;
  readonly #workers = new Map<string, Set<WorkerConnection>>();
  readonly #agents = new Map<string, RemoteAgent>();
  /** Breaks ties between equally busy workers: the one that got a run longest ago goes first. */
  #assignments = 0;
  #elsewhere: WorkersElsewhere | undefined;
  #onChange: (() => void) | undefined;

  constructor(registry: AgentRegistry) {
    this.#registry = registry;
  }

  /** Serve `agents` from `worker` as well; every name is checked before any is taken. */
  register(worker: WorkerConnection, agents: readonly WorkerAgent[]): void {
    for (const { name } of agents) {
      const existing = this.#registry.get(name);
      if (existing !== undefined && !(existing instanceof RemoteAgent) && !(existing instanceof DeclaredRemoteAgent)) {
        throw new WorkerFrameError('NAME_TAKEN', `Agent "${name}" runs in the server's own process: pick another name (no agent of this frame was registered).`);
      }
    }
    const names = new Set([...worker.served.keys(), ...agents.map(({ name }) => name)]);
    if (names.size > AGENT_FIELD_LIMITS.agentsPerWorkerMax) {
      throw new WorkerFrameError('LIMIT_EXCEEDED', `A worker may serve at most ${AGENT_FIELD_LIMITS.agentsPerWorkerMax} agents; this frame would make it ${names.size}.`);
    }
    for (const agent of agents) {
      worker.served.set(agent.name, agent);
      let serving = this.#workers.get(agent.name);
      if (serving === undefined) this.#workers.set(agent.name, (serving = new Set()));
      serving.add(worker);
      this.know(agent.name, agent.description);
    }
    this.#onChange?.();
  }

  /** The worker left: its agents stay listed, unavailable once no worker serves them. */
  remove(worker: WorkerConnection): void {
    for (const name of worker.served.keys()) this.#workers.get(name)?.delete(worker);
    if (worker.served.size > 0) this.#onChange?.();
  }

  /**
   * List `name` as a remote agent (served here, or by a worker of another cluster node), with the
   * newest description; a name an in-process agent has is left to it.
   */
  know(name: string, description: string): void {
    const remote = this.#agents.get(name);
    if (remote !== undefined) {
      remote.description = description;
      return;
    }
    // A `remote` entry of the agents file keeps its place and description; a name nobody declared appears now.
    const declared = this.#registry.get(name);
    if (declared !== undefined && !(declared instanceof DeclaredRemoteAgent)) return;
    const created = declared instanceof DeclaredRemoteAgent ? new RemoteAgent(name, declared.description, this, declared.lessons) : new RemoteAgent(name, description, this);
    this.#agents.set(name, created);
    if (declared instanceof DeclaredRemoteAgent) this.#registry.replace(created);
    else this.#registry.register(created);
  }

  /** A cluster plugs in: agents served by other nodes' workers count as available, and it hears of every change here. */
  join(elsewhere: WorkersElsewhere, onChange: () => void): void {
    this.#elsewhere = elsewhere;
    this.#onChange = onChange;
  }

  /** The remote agents at least one worker connected here serves. */
  served(): ServedAgent[] {
    const served: ServedAgent[] = [];
    for (const [name, workers] of this.#workers) {
      const agent = this.#agents.get(name);
      if (workers.size > 0 && agent !== undefined) served.push({ name, description: agent.description, workers: workers.size });
    }
    return served;
  }

  /** Whether a worker connected here serves `name`. */
  servesHere(name: string): boolean {
    return this.workersOf(name) > 0;
  }

  /** Whether `name` is a remote agent (served by workers, here or elsewhere), not an in-process one. */
  isRemote(name: string): boolean {
    return this.#agents.has(name);
  }

  availability(name: string): AgentAvailability {
    if (this.servesHere(name) || this.#elsewhere?.serves(name) === true) return { available: true };
    return { available: false, reason: NO_WORKER_REASON, reasons: NO_WORKER_REASONS };
  }

  /** The worker of `name` with the fewest runs, under its cap; the one that waited longest on a tie. */
  pick(name: string): WorkerConnection | undefined {
    let best: WorkerConnection | undefined;
    for (const worker of this.#workers.get(name) ?? []) {
      if (!worker.hasRoom) continue;
      if (best === undefined || worker.activeRuns < best.activeRuns || (worker.activeRuns === best.activeRuns && worker.lastAssignment < best.lastAssignment)) {
        best = worker;
      }
    }
    if (best !== undefined) best.lastAssignment = ++this.#assignments;
    return best;
  }

  /** How many workers serve `name` now. */
  workersOf(name: string): number {
    return this.#workers.get(name)?.size ?? 0;
  }
}
