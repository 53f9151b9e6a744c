import type { SessionService } from '../../../src/core/session-service.js';
import type { RecordingPeer } from '../support/recording-peer.js';
import type { Gates } from './contract-agents.js';
import type { CallCounts } from './delegating-agents.js';
import type { WriteFileSpy } from '../support/test-tools.js';

/**
 * What the service contract runs against: one or more `SessionService`s over one shared store.
 * A single node has one; a cluster has one per node, and a peer of any of them must see the
 * sessions of every other. The contract's tests take `services[0]` as "a" and the last as "b":
 * on a single node both are the same service, on a cluster they are two nodes.
 */
export interface ServiceTarget {
  readonly services: readonly SessionService[];
  /** A new peer that records every frame it is sent (a WebSocket connection, to the core). */
  peer(id: string): RecordingPeer;
  /** The gates the `gated` agent waits at, one per task text (see `contract-agents.ts`). */
  readonly gates: Gates;
  /** How often the `counter` sub-agent ran each task (see `delegating-agents.ts`). */
  readonly calls: CallCounts;
  /** The `write_file` spy of every node: the paths of the calls that ran (see `caller-agent.ts`). */
  readonly files: WriteFileSpy;
  /** What the services reported as failures they survived, taken (a test that expects none asserts it). */
  takeErrors(): string[];
  /** Stop every service and let go of the store; called after each test for every target opened. */
  close(): Promise<void>;
}

/** Opens a fresh target for one test: services, peers, agents and store of its own. */
export interface ServiceTargetFactory {
  open(): Promise<ServiceTarget>;
}
