import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Health, ServerMessage, SessionEvent, SessionStatus } from '@interthought/protocol';
import type { Redis } from 'ioredis';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { connectRedis, quitRedis } from '../../src/cluster/redis-connection.js';
import { sessionKeys } from '../../src/cluster/redis-keys.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { runningUrl, testServerEnv, watchServerProcess, type ServerProcess } from './server-process.js';
import { isSessionEvent, TestClient } from './ws-client.js';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** Short leases and a quick sweep, so a dead owner's sessions are taken over in about a second. */
export const LEASE_TTL_MS = 1_000;
export const SWEEP_MS = 200;
/** The most a takeover may take: the lease expires, the next sweep sees it, and the takeover is written. */
export const TAKEOVER_WITHIN_MS = LEASE_TTL_MS + SWEEP_MS + 1_500;
export const NODE_IDS = ['a', 'b', 'c'] as const;

/**
 * Every node of a test cluster: Redis at `socket`, leases of `LEASE_TTL_MS`, the bench's firehose
 * agent, logs kept whole (so a client's frames can be compared with the log from seq 1), and
 * buffers large enough that no delta is ever coalesced for a slow test client (so every frame a
 * client gets is the stored one, byte for byte).
 */
export function nodeEnv(socket: string, nodeId: string, extra: Record<string, string>): Record<string, string> {
  return testServerEnv({
    INTERTHOUGHT_REDIS_URL: `unix://${socket}`,
    INTERTHOUGHT_NODE_ID: nodeId,
    INTERTHOUGHT_LEASE_TTL_MS: String(LEASE_TTL_MS),
    INTERTHOUGHT_SWEEP_MS: String(SWEEP_MS),
    INTERTHOUGHT_TOKEN_DELAY_MS: '2',
    INTERTHOUGHT_BENCH: '1',
    INTERTHOUGHT_RETAIN_EVENTS: '1000000',
    INTERTHOUGHT_RATE_PER_SEC: '10000',
    INTERTHOUGHT_RATE_BURST: '10000',
    INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_ADDRESS: '100000',
    INTERTHOUGHT_RUN_STARTS_PER_MINUTE: '100000',
    INTERTHOUGHT_SOFT_BUFFER_BYTES: String(256 * 1024 * 1024),
    INTERTHOUGHT_HARD_BUFFER_BYTES: String(1024 * 1024 * 1024),
    ...extra,
  });
}

/**
 * One node: `node --import tsx src/main.ts`, one process. Not the `tsx` command line, which runs
 * the server in a child of its own: a SIGKILL or SIGSTOP sent to it would miss the server.
 */
export class NodeProcess {
  private constructor(
    readonly id: string,
    readonly server: ServerProcess,
    /** e.g. http://127.0.0.1:41234 */
    readonly baseUrl: string,
  ) {}

  static async start(id: string, env: Record<string, string>): Promise<NodeProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: SERVER_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    const server: ServerProcess = watchServerProcess(child, () => running.delete(child));
    try {
      return new NodeProcess(id, server, await runningUrl(server, 30_000));
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  }

  get wsUrl(): string {
    return `${this.baseUrl.replace(/^http/, 'ws')}/ws`;
  }

  get pid(): number {
    return this.server.child.pid ?? -1;
  }

  get alive(): boolean {
    return this.server.child.exitCode === null && this.server.child.signalCode === null;
  }

  /** What the node wrote to stderr (its error reports), for failure messages. */
  stderr(): string {
    return this.server.stderr();
  }

  signal(signal: NodeJS.Signals): void {
    this.server.child.kill(signal);
  }

  /** `kill -9`: gone at once, whatever it was writing. Resolves once the process is gone. */
  async crash(): Promise<void> {
    if (this.alive) this.server.child.kill('SIGKILL');
    await this.server.exited;
  }

  async getJson<T>(path: string): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`);
    if (!response.ok) throw new Error(`GET ${path} on node ${this.id} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  health(): Promise<Health> {
    return this.getJson<Health>('/api/health');
  }
}

/** Server processes still running, killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * A `TestClient` that also keeps every frame as it came, as text: what tests compare byte for
 * byte across nodes and with the log in Redis. `raw[i]` is the text of `frames[i]`.
 */
export class RecordingClient extends TestClient {
  readonly raw: string[] = [];

  constructor(socket: WebSocket) {
    super(socket);
    // Registered after TestClient's listener: both run in the same emit, so the arrays stay aligned.
    socket.on('message', (data) => this.raw.push(data.toString()));
  }

  static open(url: string): Promise<RecordingClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      const client = new RecordingClient(socket);
      socket.once('open', () => resolve(client));
      socket.once('error', reject);
    });
  }

  /** The session's events received so far, each with its text, in arrival order. */
  eventFrames(sessionId: string): Array<{ raw: string; event: SessionEvent }> {
    const frames: Array<{ raw: string; event: SessionEvent }> = [];
    this.frames.forEach((frame, index) => {
      if (isSessionEvent(frame) && frame.sessionId === sessionId) frames.push({ raw: this.raw[index]!, event: frame });
    });
    return frames;
  }

  seqs(sessionId: string): number[] {
    return this.events(sessionId).map((event) => event.seq);
  }

  /** The highest seq received of the session (0 before any). */
  cursor(sessionId: string): number {
    return this.events(sessionId).reduce((last, event) => Math.max(last, event.seq), 0);
  }

  /** Wait until the client's view of the session reached `seq`: an event, or a snapshot, at or after it. */
  async waitForSeq(sessionId: string, seq: number, timeoutMs = 15_000): Promise<void> {
    await this.waitFor(
      (frame) =>
        (isSessionEvent(frame) && frame.sessionId === sessionId && frame.seq >= seq) ||
        (frame.type === 'session.snapshot' && frame.session.sessionId === sessionId && frame.seq >= seq),
      `seq ${seq} of ${sessionId}`,
      timeoutMs,
    );
  }

  /** Wait for a `session.status` event of the session with this status; resolves with it. */
  async waitForStatus(sessionId: string, status: SessionStatus, timeoutMs = 15_000, after = 0): Promise<SessionEvent> {
    const frame = await this.waitFor(
      (f) => f.type === 'session.status' && f.sessionId === sessionId && f.status === status && f.seq > after,
      `session ${sessionId} to become ${status}`,
      timeoutMs,
    );
    return frame as SessionEvent;
  }

  /**
   * Send a request and wait for the frame that answers it (its `requestId`), whatever it is.
   * Rejects when the connection closes first (its node died).
   */
  async request(frame: Record<string, unknown>, timeoutMs = 15_000): Promise<{ id: string; answer: ServerMessage }> {
    const id = this.send(frame);
    let settled = false;
    const answered = this.waitFor((f) => 'requestId' in f && f.requestId === id, `the answer to ${String(frame.type)} ${id}`, timeoutMs);
    // Whichever loses the race must not become an unhandled rejection.
    answered.catch(() => undefined);
    const closed = new Promise<never>((_, reject) => {
      void this.closed.then((info) => {
        if (!settled) reject(new Error(`The connection closed (${info.code}) before ${String(frame.type)} ${id} was answered`));
      });
    });
    try {
      return { id, answer: await Promise.race([answered, closed]) };
    } finally {
      settled = true;
    }
  }
}

/** The requester's copy of an event is the stored frame with its `requestId` added last (`{ ...event, requestId }`). */
export function requesterCopy(plain: string, requestId: string): string {
  return `${plain.slice(0, -1)},"requestId":${JSON.stringify(requestId)}}`;
}

/** One entry of a session's log in Redis. */
export interface LogEntry {
  seq: number;
  frame: string;
}

export interface ClusterPerFile {
  readonly redis: RedisServer;
  /** A client of the file's Redis for reading logs and leases directly. */
  readonly admin: Redis;
  node(id: string): NodeProcess;
  /** Start node `id` afresh (a new process, the same node id): after a crash, or to replace it. */
  restart(id: string): Promise<NodeProcess>;
  /** A client of node `id`, past its `hello`; terminated after the test. */
  connect(id: string): Promise<RecordingClient>;
  /** The session's log as Redis holds it (XRANGE), each entry's seq read from its stream id. */
  log(sessionId: string): Promise<LogEntry[]>;
  /** The node holding the session's lease, if any. */
  leaseHolder(sessionId: string): Promise<string | undefined>;
}

export interface ClusterOptions {
  /** Redis with AOF, fsynced before every reply, kept across a kill -9 of it. */
  durable?: boolean;
  /** More environment for every node; a function is read as each node starts (for what hooks set up first, e.g. a database URL). */
  env?: Record<string, string> | (() => Record<string, string>);
  /** The nodes to run (default `NODE_IDS`, three). */
  nodes?: readonly string[];
}

/**
 * One redis-server and three nodes (a, b, c; or `options.nodes`), started before the file's first test and killed
 * after its last. A node a test crashed is started again before the next one; clients are
 * terminated after each test.
 */
export function clusterPerFile(options: ClusterOptions = {}): ClusterPerFile {
  let redis: RedisServer | undefined;
  let admin: Redis | undefined;
  const nodes = new Map<string, NodeProcess>();
  const clients: RecordingClient[] = [];
  const required = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started yet (use it inside a test)`);
    return value;
  };
  const startNode = async (id: string): Promise<NodeProcess> => {
    const extra = typeof options.env === 'function' ? options.env() : (options.env ?? {});
    const node = await NodeProcess.start(id, nodeEnv(required(redis, 'The redis-server').socket, id, extra));
    nodes.set(id, node);
    return node;
  };

  beforeAll(async () => {
    redis = await startRedisServer({ durable: options.durable ?? false });
    admin = await connectRedis(redis.socket);
    await Promise.all((options.nodes ?? NODE_IDS).map(startNode));
  }, 60_000);
  afterEach(async () => {
    for (const client of clients.splice(0)) client.terminate();
    // A node the test killed or stopped is replaced, so every test starts with all its nodes live.
    for (const [id, node] of nodes) {
      if (node.alive) continue;
      await startNode(id);
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all([...nodes.values()].map((node) => node.crash()));
    if (admin) await quitRedis(admin);
    await redis?.stop();
  }, 30_000);

  return {
    get redis() {
      return required(redis, 'The redis-server');
    },
    get admin() {
      return required(admin, 'The admin client');
    },
    node(id) {
      return required(nodes.get(id), `Node ${id}`);
    },
    async restart(id) {
      await nodes.get(id)?.crash();
      return startNode(id);
    },
    async connect(id) {
      const client = await RecordingClient.open(required(nodes.get(id), `Node ${id}`).wsUrl);
      clients.push(client);
      await client.waitForType('hello');
      return client;
    },
    async log(sessionId) {
      const entries = (await required(admin, 'The admin client').xrange(sessionKeys(sessionId).log, '-', '+')) as Array<[string, string[]]>;
      return entries.map(([id, fields]) => ({ seq: Number.parseInt(id, 10), frame: fields[1] ?? '' }));
    },
    async leaseHolder(sessionId) {
      const value = await required(admin, 'The admin client').get(sessionKeys(sessionId).lease);
      return value === null ? undefined : value.slice(0, value.lastIndexOf(':'));
    },
  };
}

/** The seqs are `from + 1`, `from + 2` … without a gap or a repeat. */
export function expectContiguous(seqs: readonly number[], from = 0): void {
  expect(seqs).toEqual(seqs.map((_, index) => from + index + 1));
}

/** The cluster tests' polling wait (one definition for the server's tests). */
export { eventually } from './eventually.js';
