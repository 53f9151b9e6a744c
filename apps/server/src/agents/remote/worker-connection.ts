import {
  AGENT_PROTOCOL_VERSION,
  agentErrorFrame,
  parseWorkerMessage,
  type AgentLimits,
  type AgentServerMessage,
  type PendingCall,
  type SessionOptions,
  type Step,
  type WorkerAgent,
  type WorkerMessage,
} from '@interthought/protocol';
import type { AgentRunContext } from '@interthought/agent';
import { nanoid } from 'nanoid';
import { WebSocket, type RawData } from 'ws';
import { ConnectionRateLimiter } from '../../transport/rate-limiter.js';
import { RemoteRun, type RunFrame, type RunLink } from './remote-run.js';
import { WorkerFrameError } from './worker-frame-error.js';
import type { WorkerPool } from './worker-pool.js';

/** Close code and reason for a worker that kept flooding after RATE_LIMITED (PROTOCOL.md Part II §A11). */
export const WORKER_FLOOD_CLOSE = { code: 1008, reason: 'kept flooding after RATE_LIMITED' } as const;
/** Aborted runs remembered, so the frames a worker sent before it read `run.abort` are not refused. */
const RETIRED_MAX = 256;
/** At most one RATE_LIMITED frame a second: refusing a flood must not become one. */
const RATE_ERROR_EVERY_MS = 1_000;

/** What `run.start` says of the run besides its id. */
export interface RunStartFields {
  sessionId: string;
  agent: string;
  task: string;
  chain: readonly Step[];
  options: SessionOptions;
  call?: PendingCall;
}

export interface WorkerConnectionOptions {
  limits: AgentLimits;
  serverVersion: string;
  pool: WorkerPool;
  /** A failure that is the server's, not the worker's. */
  report(context: string, fields: Record<string, unknown>, error: unknown): void;
}

function byteLengthOf(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.length, 0);
  return data.byteLength;
}

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

/**
 * One worker's socket on `/ws/agents`: its frames are parsed, bounded and dispatched to the runs
 * it was given; nothing it sends can reach another worker's runs (PROTOCOL.md Part II §A9).
 */
export class WorkerConnection implements RunLink {
  readonly id = `w_${nanoid(12)}`;
  readonly served = new Map<string, WorkerAgent>();
  /** Set by the pool when it gives this worker a run (ties go to the smallest). */
  lastAssignment = 0;
  readonly #socket: WebSocket;
  readonly #options: WorkerConnectionOptions;
  readonly #runs = new Map<string, RemoteRun>();
  readonly #retired = new Map<string, RemoteRun>();
  readonly #rate: ConnectionRateLimiter;
  #lastRateError = -Infinity;
  #gone = false;

  constructor(socket: WebSocket, options: WorkerConnectionOptions) {
    this.#socket = socket;
    this.#options = options;
    this.#rate = new ConnectionRateLimiter({ ratePerSec: options.limits.framesPerSecond, burst: options.limits.frameBurst });
  }

  get socket(): WebSocket {
    return this.#socket;
  }

  get open(): boolean {
    return this.#socket.readyState === WebSocket.OPEN;
  }

  get activeRuns(): number {
    return this.#runs.size;
  }

  get hasRoom(): boolean {
    return !this.#gone && this.open && this.#runs.size < this.#options.limits.maxRunsPerWorker;
  }

  hello(): void {
    this.send({ type: 'hello', protocol: AGENT_PROTOCOL_VERSION, serverVersion: this.#options.serverVersion, workerId: this.id, limits: this.#options.limits });
  }

  /** Serialised once, here, at the edge. */
  send(frame: AgentServerMessage): void {
    if (this.open) this.#socket.send(JSON.stringify(frame));
  }

  /** Give this worker a run; settles when the worker ends or fails it, the run is aborted, or the worker goes away. */
  startRun(context: AgentRunContext, start: RunStartFields): Promise<void> {
    const runId = `r_${nanoid(16)}`;
    const run = new RemoteRun(runId, context, this, { maxStepChars: this.#options.limits.maxStepChars, maxQueuedFrames: this.#options.limits.maxQueuedFramesPerRun });
    this.#runs.set(runId, run);
    run.begin({ type: 'run.start', runId, ...start, chain: [...start.chain] });
    return run.done;
  }

  released(run: RemoteRun, retire: boolean): void {
    this.#runs.delete(run.runId);
    if (!retire) return;
    this.#retired.set(run.runId, run);
    if (this.#retired.size > RETIRED_MAX) {
      const oldest = this.#retired.keys().next().value;
      if (oldest !== undefined) this.#retired.delete(oldest);
    }
  }

  report(context: string, error: unknown): void {
    this.#options.report(context, { workerId: this.id }, error);
  }

  /** One frame from the socket. Never throws: whatever is wrong with it becomes an `error` frame. */
  handle(data: RawData, isBinary: boolean): void {
    try {
      this.#handle(data, isBinary);
    } catch (error) {
      this.report('handling a worker frame failed', error);
      this.send(agentErrorFrame('INTERNAL', 'The server could not handle the frame.'));
    }
  }

  /** The socket closed: every run it had is interrupted, and its agents lose this worker. */
  closed(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#options.pool.remove(this);
    for (const run of [...this.#runs.values()]) {
      run.interrupt(`The worker serving agent "${run.agentName}" went away mid-run: resume to continue.`);
    }
    this.#runs.clear();
    this.#retired.clear();
  }

  #handle(data: RawData, isBinary: boolean): void {
    const verdict = this.#rate.check();
    if (verdict === 'close') {
      this.#socket.close(WORKER_FLOOD_CLOSE.code, WORKER_FLOOD_CLOSE.reason);
      return;
    }
    if (verdict === 'reject') {
      const now = performance.now();
      if (now - this.#lastRateError >= RATE_ERROR_EVERY_MS) {
        this.#lastRateError = now;
        this.send(agentErrorFrame('RATE_LIMITED', `Over ${this.#options.limits.framesPerSecond} frames a second: frames are being dropped; slow down.`));
      }
      return;
    }
    const bytes = byteLengthOf(data);
    if (bytes > this.#options.limits.maxFrameBytes) {
      this.send(agentErrorFrame('FRAME_TOO_LARGE', `The frame has ${bytes} bytes, over the limit of ${this.#options.limits.maxFrameBytes}: it was dropped; split text over several step.delta frames.`));
      return;
    }
    if (isBinary) {
      this.send(agentErrorFrame('BAD_JSON', 'Binary frames are not part of the protocol: send JSON text frames.'));
      return;
    }
    const parsed = parseWorkerMessage(textOf(data));
    if (!parsed.ok) {
      this.send(parsed.error);
      return;
    }
    this.#dispatch(parsed.message);
  }

  #dispatch(message: WorkerMessage): void {
    if (message.type === 'agent.register') {
      try {
        this.#options.pool.register(this, message.agents);
      } catch (error) {
        if (!(error instanceof WorkerFrameError)) throw error;
        this.send(agentErrorFrame(error.code, error.message, { requestId: message.id }, error.details));
        return;
      }
      const agents = [...this.served.values()].map(({ name, description }) => ({ name, description }));
      this.send({ type: 'agent.registered', ...(message.id === undefined ? {} : { requestId: message.id }), agents });
      return;
    }
    this.#toRun(message);
  }

  #toRun(frame: RunFrame): void {
    const run = this.#runs.get(frame.runId);
    if (run !== undefined) {
      run.accept(frame);
      return;
    }
    const retired = this.#retired.get(frame.runId);
    if (retired !== undefined) {
      retired.accept(frame);
      return;
    }
    const names = { runId: frame.runId, ...('ref' in frame ? { ref: frame.ref } : {}), ...(frame.type === 'tool.run' ? { requestId: frame.id } : {}) };
    this.send(agentErrorFrame('UNKNOWN_RUN', `Run ${frame.runId.slice(0, 128)} is not one this worker was given (or it is over): write only to runs you got a run.start for.`, names));
  }
}
