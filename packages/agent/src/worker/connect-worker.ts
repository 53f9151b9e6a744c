import {
  AGENT_PROTOCOL_VERSION,
  AGENT_SERVER_MESSAGE_TYPES,
  AGENT_WIRE_PATH,
  AgentServerMessageSchema,
  type AgentErrorFrame,
  type AgentHello,
  type AgentServerMessage,
  type WorkerMessage,
} from '@interthought/protocol';
import WebSocket from 'ws';
import type { AgentToolbox } from '../agent-tools.js';
import { reconnectDelay, type BackoffOptions } from './backoff.js';
import type { WorkerAgent, WorkerAgentEntry } from './worker-agent.js';
import { WorkerRun, type RunLink } from './worker-run.js';
import { SendWindow } from './send-window.js';
import { createToolbox } from './worker-toolbox.js';

/** What `connectWorker` is told. */
export interface ConnectWorkerOptions {
  /** The server: `http://host:port` (or `ws://…`); the path defaults to `/ws/agents`. */
  url: string;
  /** One of the server's `INTERTHOUGHT_AGENT_TOKENS`. */
  token: string;
  /** The agents this worker serves: any `Agent`, or an entry giving it another name or its own tools. */
  agents: ReadonlyArray<WorkerAgent | WorkerAgentEntry>;
  /** The worker's own tools, which its agents' `tool_call` steps name (default: none). */
  tools?: AgentToolbox;
  /** Reconnect after a lost connection (default on, from 250 ms doubling to 30 s, with jitter); `false` to stop instead. */
  reconnect?: BackoffOptions | false;
  /** What happens to the connection and its runs, for logs. */
  onEvent?: (event: WorkerEvent) => void;
}

/** What a worker reports as it goes. */
export type WorkerEvent =
  | { type: 'connected'; workerId: string }
  | { type: 'registered'; workerId: string; agents: string[] }
  | { type: 'disconnected'; code: number; reason: string; retryInMs?: number }
  | { type: 'run.started'; runId: string; sessionId: string; agent: string }
  | { type: 'run.ended'; runId: string; outcome: 'completed' | 'failed' | 'aborted' }
  /** The server refused a frame (e.g. `STEP_TOO_LARGE`, `BAD_USAGE`). */
  | { type: 'refused'; error: AgentErrorFrame }
  | { type: 'error'; error: Error };

/** A running worker. */
export interface AgentWorker {
  /** This connection's id as the server's logs name it (a new one after each reconnect). */
  readonly workerId: string | undefined;
  /** Connected and registered. */
  readonly connected: boolean;
  /** Runs in progress. */
  readonly activeRuns: number;
  /** Settles once the worker stopped for good: `close()`, or a refusal a retry cannot fix (rejects then). */
  readonly closed: Promise<void>;
  /** Abort the runs in progress, close the connection (1000) and stop reconnecting. */
  close(): Promise<void>;
}

/** A refusal no retry can fix: a wrong token, no `/ws/agents`, a taken name, another protocol major. */
export class WorkerRefusedError extends Error {
  override readonly name = 'WorkerRefusedError';
}

/** Frames of a run per event-loop turn until `hello` says the server's queue: an eighth of its default 1000. */
const DEFAULT_TURN_BUDGET = 125;

/** A lost server is noticed when its pings stop for this many heartbeats. */
const MISSED_HEARTBEATS = 3;

interface Served {
  agent: WorkerAgent;
  name: string;
  description: string;
  tools: AgentToolbox;
}

function wireUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol === 'http:') parsed.protocol = 'ws:';
  if (parsed.protocol === 'https:') parsed.protocol = 'wss:';
  if (parsed.pathname === '' || parsed.pathname === '/') parsed.pathname = AGENT_WIRE_PATH;
  return parsed.toString();
}

function servedOf(options: ConnectWorkerOptions): Served[] {
  const tools = options.tools ?? createToolbox([]);
  const served = options.agents.map((entry): Served => {
    const { agent, ...given } = 'agent' in entry ? entry : { agent: entry };
    return { agent, name: given.name ?? agent.name, description: given.description ?? agent.description, tools: given.tools ?? tools };
  });
  if (served.length === 0) throw new TypeError('connectWorker needs at least one agent to serve.');
  return served;
}

const serverTypes: ReadonlySet<string> = new Set(AGENT_SERVER_MESSAGE_TYPES);

/**
 * One worker connection to `/ws/agents` (PROTOCOL.md Part II): it registers the agents, runs each
 * `run.start` with the agent's own `run(context)`, and comes back after a lost connection.
 */
class WorkerClient implements AgentWorker, RunLink {
  workerId: string | undefined;
  connected = false;
  readonly closed: Promise<void>;
  readonly #options: ConnectWorkerOptions;
  readonly #served: Map<string, Served>;
  readonly #runs = new Map<string, WorkerRun>();
  readonly #ready: { resolve: () => void; reject: (error: Error) => void; settled: boolean };
  readonly ready: Promise<void>;
  #socket: WebSocket | undefined;
  #attempt = 0;
  #requests = 0;
  #registerId = '';
  #retry: NodeJS.Timeout | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #heartbeatMs = 0;
  turnBudget = DEFAULT_TURN_BUDGET;
  /** The current connection's frames in flight; none is bounded before `hello` says the server's queue. */
  #window: SendWindow | undefined;
  #stopping = false;
  #fatal: Error | undefined;
  #resolveClosed!: () => void;
  #rejectClosed!: (error: Error) => void;

  constructor(options: ConnectWorkerOptions) {
    this.#options = options;
    this.#served = new Map(servedOf(options).map((served) => [served.name, served]));
    const ready = { resolve: (): void => undefined, reject: (_error: Error): void => undefined, settled: false };
    this.ready = new Promise<void>((resolve, reject) => Object.assign(ready, { resolve, reject }));
    this.#ready = ready;
    this.closed = new Promise<void>((resolve, reject) => {
      this.#resolveClosed = resolve;
      this.#rejectClosed = reject;
    });
    this.closed.catch(() => undefined);
    this.ready.catch(() => undefined);
  }

  get activeRuns(): number {
    return this.#runs.size;
  }

  start(): void {
    this.#connect();
  }

  async close(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#retry);
    this.#abortRuns('The worker is closing.');
    const socket = this.#socket;
    if (socket !== undefined && socket.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.close(1000, 'worker closing');
      });
    } else {
      this.#stopped();
    }
    await this.closed.catch(() => undefined);
  }

  get hasRoom(): boolean {
    return this.#window?.open ?? true;
  }

  send(frame: WorkerMessage): void {
    const socket = this.#socket;
    if (socket === undefined || socket.readyState !== WebSocket.OPEN) return;
    socket.send(JSON.stringify(frame));
    this.#window?.sent();
  }

  nextRequestId(): string {
    return `q${++this.#requests}`;
  }

  released(run: WorkerRun, outcome: 'completed' | 'failed' | 'aborted'): void {
    if (this.#runs.get(run.runId) === run) this.#runs.delete(run.runId);
    this.#emit({ type: 'run.ended', runId: run.runId, outcome });
  }

  #emit(event: WorkerEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch {
      // A logger's failure must not take the worker down.
    }
  }

  #connect(): void {
    const socket = new WebSocket(wireUrl(this.#options.url), { headers: { authorization: `Bearer ${this.#options.token}` } });
    this.#socket = socket;
    this.#window = undefined;
    socket.on('message', (data, isBinary) => {
      if (!isBinary) this.#handle(data.toString());
    });
    socket.on('ping', () => this.#armWatchdog());
    socket.on('pong', (data) => {
      if (this.#socket === socket) this.#window?.answered(data);
    });
    socket.on('error', (error) => {
      const status = /Unexpected server response: (\d+)/u.exec(error.message)?.[1];
      if (status === '401') this.#fail(new WorkerRefusedError(`The server refused the token (401): use one of its INTERTHOUGHT_AGENT_TOKENS.`));
      else if (status === '404') this.#fail(new WorkerRefusedError(`The server has no ${AGENT_WIRE_PATH} (404): start it with INTERTHOUGHT_AGENT_TOKENS set.`));
      else this.#emit({ type: 'error', error });
    });
    socket.on('close', (code, reason) => this.#onClose(socket, code, reason.toString()));
  }

  #onClose(socket: WebSocket, code: number, reason: string): void {
    if (this.#socket !== socket) return;
    this.connected = false;
    clearTimeout(this.#watchdog);
    this.#abortRuns('The connection to the server was lost.');
    if (this.#stopping || this.#fatal !== undefined || this.#options.reconnect === false) {
      this.#emit({ type: 'disconnected', code, reason });
      this.#stopped();
      return;
    }
    const retryInMs = reconnectDelay(this.#attempt++, this.#options.reconnect);
    this.#emit({ type: 'disconnected', code, reason, retryInMs });
    this.#retry = setTimeout(() => this.#connect(), retryInMs);
  }

  #stopped(): void {
    this.#stopping = true;
    const error = this.#fatal;
    if (!this.#ready.settled) {
      this.#ready.settled = true;
      this.#ready.reject(error ?? new Error('The worker was closed before it registered.'));
    }
    if (error === undefined) this.#resolveClosed();
    else this.#rejectClosed(error);
  }

  /** Stop for good: retrying cannot help. */
  #fail(error: Error): void {
    this.#fatal ??= error;
    this.#emit({ type: 'error', error });
    const socket = this.#socket;
    if (socket?.readyState === WebSocket.OPEN) socket.close(1000, 'refused');
  }

  #armWatchdog(): void {
    clearTimeout(this.#watchdog);
    if (this.#heartbeatMs <= 0) return;
    // A server that stopped pinging is gone (a half-open connection): drop it and reconnect.
    this.#watchdog = setTimeout(() => this.#socket?.terminate(), this.#heartbeatMs * MISSED_HEARTBEATS);
    this.#watchdog.unref();
  }

  #abortRuns(reason: string): void {
    for (const run of this.#runs.values()) run.abort(reason);
  }

  #handle(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      return;
    }
    const type = (value as { type?: unknown } | null)?.type;
    // Frame types this worker does not know are ignored (PROTOCOL.md Part II §A1).
    if (typeof type !== 'string' || !serverTypes.has(type)) return;
    const parsed = AgentServerMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.#emit({ type: 'error', error: new Error(`The server sent a ${type} frame this worker cannot read: ${parsed.error.message}`) });
      return;
    }
    this.#dispatch(parsed.data);
  }

  #dispatch(frame: AgentServerMessage): void {
    switch (frame.type) {
      case 'hello':
        return this.#hello(frame);
      case 'agent.registered':
        if (frame.requestId !== this.#registerId) return;
        this.connected = true;
        this.#attempt = 0;
        this.#emit({ type: 'registered', workerId: this.workerId ?? '', agents: frame.agents.map(({ name }) => name) });
        if (!this.#ready.settled) {
          this.#ready.settled = true;
          this.#ready.resolve();
        }
        return;
      case 'run.start':
        return this.#runStart(frame);
      case 'run.abort':
        this.#runs.get(frame.runId)?.abort(frame.reason);
        return;
      case 'flow':
        this.#runs.get(frame.runId)?.setPaused(frame.paused);
        return;
      case 'call.cleared':
        this.#runs.get(frame.runId)?.callCleared(frame.ref);
        return;
      case 'tool.result':
        this.#runs.get(frame.runId)?.toolAnswer(frame);
        return;
      case 'error':
        return this.#refused(frame);
    }
  }

  #hello(frame: AgentHello): void {
    const [name, major] = frame.protocol.split('/');
    const [ourName, ourMajor] = AGENT_PROTOCOL_VERSION.split('/');
    if (name !== ourName || major?.split('.')[0] !== ourMajor) {
      this.#fail(new WorkerRefusedError(`The server speaks ${frame.protocol}; this worker speaks ${AGENT_PROTOCOL_VERSION}.`));
      return;
    }
    this.workerId = frame.workerId;
    this.#heartbeatMs = frame.limits.heartbeatMs;
    // The server says flow paused at an eighth of the frames it holds for a run (PROTOCOL.md Part II §A7).
    this.turnBudget = Math.max(1, Math.floor(frame.limits.maxQueuedFramesPerRun / 8));
    // An eighth of that queue in flight at most (PROTOCOL.md Part II §A7). Whatever is in flight is
    // written and waiting: at saturation it is the latency the hop adds, and a busy server applies
    // far fewer frames in one turn (20–40 on the bench's 2 cores), so a larger window only adds waiting.
    const socket = this.#socket;
    this.#window = new SendWindow(
      Math.floor(frame.limits.maxQueuedFramesPerRun / 8),
      (data) => {
        if (socket?.readyState === WebSocket.OPEN) socket.ping(data);
      },
      () => {
        for (const run of this.#runs.values()) run.outbox.resume();
      },
    );
    this.#armWatchdog();
    this.#emit({ type: 'connected', workerId: frame.workerId });
    const agents = [...this.#served.values()]
      .filter((served) => served.agent.availability?.().available !== false)
      .map(({ name: agentName, description }) => ({ name: agentName, description }));
    if (agents.length === 0) {
      this.#fail(new WorkerRefusedError('None of the worker\'s agents is available (see their availability()).'));
      return;
    }
    this.#registerId = this.nextRequestId();
    this.send({ type: 'agent.register', id: this.#registerId, agents });
  }

  #runStart(frame: Extract<AgentServerMessage, { type: 'run.start' }>): void {
    const served = this.#served.get(frame.agent);
    if (served === undefined) {
      this.send({ type: 'run.fail', runId: frame.runId, message: `This worker does not serve agent "${frame.agent}".` });
      return;
    }
    const run = new WorkerRun(frame, this);
    this.#runs.set(frame.runId, run);
    this.#emit({ type: 'run.started', runId: frame.runId, sessionId: frame.sessionId, agent: frame.agent });
    void run.execute(served.agent, served.tools);
  }

  #refused(frame: AgentErrorFrame): void {
    if (frame.requestId !== undefined && frame.requestId === this.#registerId) {
      this.#fail(new WorkerRefusedError(`The server refused to register the agents (${frame.code}): ${frame.message}`));
      return;
    }
    if (frame.runId !== undefined && this.#runs.get(frame.runId)?.toolAnswer(frame) === true) return;
    this.#emit({ type: 'refused', error: frame });
  }
}

/**
 * Serve `agents` to an Interthought server as a remote worker (PROTOCOL.md Part II): connects to
 * `/ws/agents` with the bearer token, registers them, and runs each of the server's runs with the
 * agent's own `run(context)`. Resolves once the agents are registered; rejects on a refusal no
 * retry can fix. A lost connection is retried with capped, jittered exponential backoff.
 */
export async function connectWorker(options: ConnectWorkerOptions): Promise<AgentWorker> {
  const client = new WorkerClient(options);
  client.start();
  await client.ready;
  return client;
}
