import type { ErrorCode } from '@interthought/protocol';
import type { Quota } from '../commands/quota.js';
import type { ClusterHealth } from '../session-service.js';

/**
 * Where a session's commands run: here (this process may run it now), or on the node that does.
 * `handOver`: this node holds the session but cannot run its agent (no worker for it here): it
 * hands the session back, and `nodeId`, which can, takes it.
 */
export type Placement = { here: true } | { here: false; nodeId: string; handOver?: true };

/** The commands that change a session, which run where the session runs. */
export type CommandOp = 'correct' | 'approve' | 'reject' | 'answer' | 'forgetApprovals' | 'message' | 'pause' | 'resume' | 'cancel' | 'cancelSubagent' | 'delete' | 'share' | 'unshare';

/** Commands that may start a run of the session's agent: they run where that agent can run. */
// Cancelling a sub-agent may start its parent again (a waiting session that waited for it alone, PROTOCOL.md §24.6).
export const RUN_STARTING_OPS: ReadonlySet<RoutedOp> = new Set<RoutedOp>(['create', 'correct', 'approve', 'reject', 'answer', 'message', 'resume', 'cancelSubagent']);

/** What goes from node to node: a command on a session, or `create` (a new session placed where its agent can run). */
export type RoutedOp = CommandOp | 'create';

/** A command sent to the node that runs a session. */
export interface RoutedCommand {
  op: RoutedOp;
  /** Empty for `create`. */
  sessionId: string;
  /** The correction, for `correct`; the decision, for `approve` / `reject`; the answer, for `answer`; the message, for `message`; the link, for `share` / `unshare`; the new session, for `create`. */
  input?: unknown;
  /** The requester, as the owner's core sees it (its quota, its id as `correction.by`). */
  peer: { id: string; quota?: Quota };
  requestId?: string;
}

/** How a routed command ended on the node that ran it (or did not). */
export class RouteError extends Error {
  constructor(
    readonly code: ErrorCode | 'NOT_OWNER' | 'NO_ANSWER',
    message: string,
  ) {
    super(message);
  }
}

/** What a node does with a command routed to it: frames for the requester go out through `send`. */
export type ServeRouted = (command: RoutedCommand, send: (frame: string) => void) => Promise<unknown>;

/**
 * Where sessions run (a port of the core). A single process runs every session itself; a cluster
 * node runs a session only while it holds its lease, routes commands for the others to their
 * owner, and hands a session back once nothing runs it.
 */
export interface SessionPlacement {
  /** Sessions are held only while something runs them, and handed back after (a cluster); false: every session stays here. */
  readonly handsBack: boolean;
  /** How long a command waits for a dead owner's hold to expire before it gives up. */
  readonly takeoverWaitMs: number;
  /**
   * Take the session here when nobody holds it; say who does otherwise. `SESSION_NOT_FOUND` for an
   * unknown session. With `startsRun` (the command may start a run of the session's agent), a node
   * that cannot run that agent names one that can instead of taking it.
   */
  claim(sessionId: string, options?: { takeover?: boolean; startsRun?: boolean }): Promise<Placement>;
  /** Where a new session of `agent` is created: here, or on a node that can run it. */
  placeNew(agent: string): Placement;
  holds(sessionId: string): boolean;
  /** Give the session back: nothing of it runs here any more. */
  release(sessionId: string): Promise<void>;
  /** Run a command on the node that holds the session; `onFrame` gets the requester's frames. Rejects with a `RouteError`. */
  route(nodeId: string, command: RoutedCommand, onFrame: (frame: string) => void): Promise<unknown>;
  /** Typed hooks, set once by the core: commands routed here, sessions lost to another node, sessions whose owner died. */
  serve(handlers: { routed: ServeRouted; lost: (sessionId: string) => void; orphaned: (sessionId: string) => void }): void;
  /** Stop holding: renewing stops; with `release`, every session is handed back at once. */
  stop(options: { release: boolean }): Promise<void>;
  /** A cluster node's figures for health; undefined on a single process. */
  health(): ClusterHealth | undefined;
}

/** A single process: every session runs here, nothing is routed or handed back. */
export const SINGLE_PROCESS: SessionPlacement = {
  handsBack: false,
  takeoverWaitMs: 0,
  claim: () => Promise.resolve({ here: true }),
  placeNew: () => ({ here: true }),
  holds: () => true,
  release: () => Promise.resolve(),
  route: () => Promise.reject(new RouteError('INTERNAL', 'A single process routes no command.')),
  serve: () => undefined,
  stop: () => Promise.resolve(),
  health: () => undefined,
};
