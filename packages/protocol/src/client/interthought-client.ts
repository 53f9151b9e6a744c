import type { ApprovalResolvedEvent } from '../approval.js';
import type { MessageAccepted, MessageMode } from '../conversation.js';
import type { Hello } from '../hello.js';
import { SHARE_ENDED_CLOSE, type SessionShared, type SessionUnshared, type ShareRole } from '../sharing.js';
import { TOKEN_EXPIRED_CLOSE } from '../auth.js';
import { PROTOCOL_VERSION, isCompatibleProtocol } from '../version.js';
import type { ClientMessageType, ServerMessage } from '../messages.js';
import type { SessionCreated, SessionOptions } from '../session.js';
import type { SubagentStatusEvent } from '../subagent.js';
import type { InputResolvedEvent } from '../question.js';
import type { ApprovalsForgottenEvent } from '../approval-rules.js';
import { ANSWER_TYPES, type AnswerTo, type RequestOf } from './answers.js';
import { DEFAULT_BACKOFF, backoffDelay, type BackoffOptions } from './backoff.js';
import { InterthoughtError } from './interthought-error.js';
import { PendingRequests } from './pending-requests.js';
import { readServerFrame } from './server-frame.js';
import { SessionFeeds, type SessionUpdateListener, type SubscribeOptions } from './session-feeds.js';
import { SessionListFeed, type SessionListListener, type WatchSessionsOptions } from './session-list-feed.js';
import { TokenRefresher } from './token-refresh.js';
import {
  SOCKET_OPEN,
  globalWebSocket,
  withToken,
  type SocketMessageEvent,
  type WebSocketConstructor,
  type WebSocketLike,
} from './websocket-like.js';

/** Where the connection is: `reconnecting` covers the wait before the next attempt and the attempt itself. */
export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** Options of `new InterthoughtClient`. */
export interface InterthoughtClientOptions {
  /** The server's WebSocket URL, e.g. `ws://localhost:3000/ws`. */
  url: string;
  /** The WebSocket constructor; defaults to `globalThis.WebSocket` (in Node 20 pass `WebSocket` from `ws`). */
  WebSocket?: WebSocketConstructor;
  /**
   * Sent as the `token` query parameter. A function is asked before every connection attempt, so a
   * token that changes (a browser user pastes a new one) is used from the next attempt on. When it
   * is a JWT and the server announces `auth-refresh`, the function is also asked shortly before the
   * token expires, and a newer token it returns is sent as `auth.refresh` (PROTOCOL.md §3.3).
   */
  token?: string | (() => string | undefined);
  /** How long before a JWT's `exp` to send a newer one (default 30 s). */
  tokenRefreshLeadMs?: number;
  /** How long a request waits for its answer before it fails with `TIMEOUT` (default 10 s). */
  requestTimeoutMs?: number;
  /** Reconnection delays (default 250 ms doubling to 10 s, full jitter). */
  backoff?: Partial<BackoffOptions>;
  /** Where exceptions thrown by your listeners go (default `console.error`); they never stop delivery. */
  onListenerError?: (error: unknown) => void;
}

/** Options of `InterthoughtClient.createSession`. */
export interface CreateSessionOptions {
  /** The agent to run (the server's default is `demo`). */
  agent?: string;
  options?: SessionOptions;
}

/** Closing code for a server that never said hello (4000–4999 are free for applications). */
const NO_HELLO_CLOSE_CODE = 4000;
/** Closing code for a server that speaks another major version of the protocol. */
const PROTOCOL_MISMATCH_CLOSE_CODE = 4001;

/**
 * A typed Interthought client for browsers and Node: requests matched to their answers, session
 * subscriptions that survive reconnects with every event delivered exactly once, in order.
 * Plain TypeScript, no framework.
 */
export class InterthoughtClient {
  /** The connection's state; see `onStateChange`. */
  state: ConnectionState = 'closed';
  /** The last `hello` the server sent (set once the connection is open). */
  hello: Hello | undefined;
  /** When the next reconnection attempt starts (epoch ms), while `reconnecting`. */
  reconnectAt: number | undefined;

  private readonly WebSocketImpl: WebSocketConstructor | undefined;
  /** The URL without the token, also for messages. */
  private readonly shownUrl: string;
  private readonly token: string | (() => string | undefined) | undefined;
  private readonly requestTimeoutMs: number;
  private readonly backoff: BackoffOptions;
  private readonly onListenerError: (error: unknown) => void;
  private readonly pending = new PendingRequests();
  private readonly feeds: SessionFeeds;
  private readonly sessionList: SessionListFeed;
  private readonly refresher: TokenRefresher;
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();
  private readonly messageListeners = new Set<(frame: ServerMessage) => void>();
  private openWaiters: Array<{ resolve: (hello: Hello) => void; reject: (error: InterthoughtError) => void }> = [];
  private socket: WebSocketLike | undefined;
  private attempt = 0;
  private nextRequestId = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private helloTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: InterthoughtClientOptions) {
    this.WebSocketImpl = options.WebSocket ?? globalWebSocket();
    this.shownUrl = options.url;
    this.token = options.token;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.onListenerError = options.onListenerError ?? ((error) => console.error('Interthought listener failed:', error));
    this.feeds = new SessionFeeds({
      isOpen: () => this.state === 'open',
      subscribe: (sessionId, afterSeq) =>
        this.request(afterSeq === undefined ? { type: 'session.subscribe', sessionId } : { type: 'session.subscribe', sessionId, afterSeq }),
      unsubscribe: (sessionId) => {
        if (this.state === 'open') this.request({ type: 'session.unsubscribe', sessionId }).catch(() => undefined);
      },
      listenerFailed: (error) => this.onListenerError(error),
    });
    this.sessionList = new SessionListFeed({
      isOpen: () => this.state === 'open',
      isClosed: () => this.state === 'closed',
      watch: (limit, onAnswer) => this.send(limit === undefined ? { type: 'sessions.watch' } : { type: 'sessions.watch', limit }, onAnswer),
      unwatch: () => void this.request({ type: 'sessions.unwatch' }).catch(() => undefined),
      listenerFailed: (error) => this.onListenerError(error),
    });
    const token = options.token;
    this.refresher = new TokenRefresher({
      // A fixed string never changes: nothing newer to send.
      token: typeof token === 'function' ? token : () => undefined,
      refresh: (next) => this.request({ type: 'auth.refresh', token: next }),
      leadMs: options.tokenRefreshLeadMs ?? 30_000,
    });
  }

  /**
   * Open the connection; resolves with the server's `hello`. If the server cannot be reached the
   * client keeps retrying with backoff (state `reconnecting`); `close()` rejects the wait.
   */
  connect(): Promise<Hello> {
    if (this.state === 'open' && this.hello) return Promise.resolve(this.hello);
    const opened = new Promise<Hello>((resolve, reject) => this.openWaiters.push({ resolve, reject }));
    if (this.state === 'closed') {
      this.attempt = 0;
      this.setState('connecting');
      this.openSocket();
    }
    return opened;
  }

  /** Close for good (until `connect()` again): every waiting request fails with `DISCONNECTED`. */
  close(): void {
    if (this.state === 'closed') return;
    this.clearTimers();
    this.sessionList.stop();
    this.reconnectAt = undefined;
    const socket = this.socket;
    this.socket = undefined;
    if (socket) closeQuietly(socket, 1000, 'client closed');
    this.setState('closed');
    const error = new InterthoughtError('DISCONNECTED', 'The client was closed.');
    this.pending.failAll(error);
    for (const waiter of this.openWaiters.splice(0)) waiter.reject(error);
  }

  /** Skip the rest of the backoff wait and try to reconnect now (a "retry" button). */
  reconnectNow(): void {
    if (this.state !== 'reconnecting' || this.socket) return;
    this.clearTimers();
    this.openSocket();
  }

  /** Listen to state changes; returns the function that stops listening. */
  onStateChange(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Listen to every server frame of a known type (unknown types are ignored); returns the function that stops listening. */
  onMessage(listener: (frame: ServerMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  /**
   * Send a request with a fresh `id`; resolves with the answer whose `requestId` matches it, or rejects
   * with an `InterthoughtError`: the server's `error` answer, `TIMEOUT`, or `DISCONNECTED` (the
   * connection dropped after it was sent). Made while the client is (re)connecting, it waits for the connection.
   */
  request<T extends ClientMessageType>(message: RequestOf<T>): Promise<AnswerTo<T>> {
    return this.send(message, undefined);
  }

  /** Start a session. The server subscribes its creator: pass its id to `subscribe` (or a `SessionMirror`) to get every event from the first. */
  createSession(task: string, options: CreateSessionOptions = {}): Promise<SessionCreated> {
    const message: RequestOf<'session.create'> = { type: 'session.create', task };
    if (options.agent !== undefined) message.agent = options.agent;
    if (options.options !== undefined) message.options = options.options;
    // Track the session synchronously with its answer: its events follow right behind it.
    return this.send(message, (answer) => this.feeds.track(answer));
  }

  /**
   * Fork a session from one of its steps (PROTOCOL.md §20.4): resolves with the fork's
   * `session.created`. The server subscribes the requester, so the fork is followed at once, as
   * after `createSession`.
   */
  forkSession(sessionId: string, stepId: string): Promise<SessionCreated> {
    return this.send({ type: 'session.fork', sessionId, stepId }, (answer) => this.feeds.track(answer));
  }

  /** Say something to a session's agent (§20.2); resolves with `message.accepted`. */
  sendMessage(sessionId: string, text: string, mode?: MessageMode): Promise<MessageAccepted> {
    return this.request(mode === undefined ? { type: 'session.message', sessionId, text } : { type: 'session.message', sessionId, text, mode });
  }

  /**
   * Run a tool call that waits for approval (§19.3); resolves with the `approval.resolved` event.
   * `remember: "session"` also approves every later call of the tool in the session (§25.3).
   */
  approveToolCall(sessionId: string, stepId: string, options?: { remember?: 'session' }): Promise<ApprovalResolvedEvent> {
    return this.request(options?.remember === undefined ? { type: 'tool.approve', sessionId, stepId } : { type: 'tool.approve', sessionId, stepId, remember: options.remember });
  }

  /** Answer the question an `ask_user` call waits on (§25.2); resolves with the `input.resolved` event. */
  provideInput(sessionId: string, stepId: string, text: string): Promise<InputResolvedEvent> {
    return this.request({ type: 'input.provide', sessionId, stepId, text });
  }

  /** Take back the approval remembered for `tool`, or every one without it (§25.3); resolves with `approvals.forgotten`. */
  forgetApprovals(sessionId: string, tool?: string): Promise<ApprovalsForgottenEvent> {
    return this.request(tool === undefined ? { type: 'approvals.forget', sessionId } : { type: 'approvals.forget', sessionId, tool });
  }

  /**
   * Stop one running or waiting sub-agent of a session (PROTOCOL.md §24.6; capability `subagents`):
   * `scope` is its delegate call's step id. Resolves with the `subagent.status` event (`cancelled`)
   * that carries the request id; the parent goes on.
   */
  cancelSubagent(sessionId: string, scope: string): Promise<SubagentStatusEvent> {
    return this.request({ type: 'subagent.cancel', sessionId, scope });
  }

  /** Make a share link to a session (§21.3): resolves with `session.shared`, whose token is sent only this once. */
  shareSession(sessionId: string, role: ShareRole, expiresInSec?: number): Promise<SessionShared> {
    return this.request(expiresInSec === undefined ? { type: 'session.share', sessionId, role } : { type: 'session.share', sessionId, role, expiresInSec });
  }

  /** Revoke a share link (§21.3): connections opened with it lose access at once. */
  unshareSession(sessionId: string, shareId: string): Promise<SessionUnshared> {
    return this.request({ type: 'session.unshare', sessionId, shareId });
  }

  /** Refuse a tool call that waits for approval (§19.3); resolves with the `approval.resolved` event. */
  rejectToolCall(sessionId: string, stepId: string, reason?: string): Promise<ApprovalResolvedEvent> {
    return this.request(reason === undefined ? { type: 'tool.reject', sessionId, stepId } : { type: 'tool.reject', sessionId, stepId, reason });
  }

  /**
   * Follow a session: `onUpdate` gets a `session.snapshot` first (or, with `afterSeq`, the events after
   * it), then every event exactly once, in order, across reconnects; a later snapshot replaces the
   * state (the server no longer had the missed events). Updates may be delivered before this returns.
   * Returns the function that stops following (sending `session.unsubscribe` when no listener is left).
   */
  subscribe(sessionId: string, onUpdate: SessionUpdateListener, options?: SubscribeOptions): () => void {
    return this.feeds.attach(sessionId, onUpdate, options);
  }

  /**
   * Follow the list of sessions (`sessions.watch`): `onChange` gets the whole list, newest first
   * (at most the widest `limit` asked for), once the server answers and again after every change
   * (a session created, its status or revision changed, deleted) and after every reconnect.
   * `onError` hears of a watch refused for good; a busy server or a lost answer is asked again.
   * Returns the function that stops following (sending `sessions.unwatch` when no one is left).
   */
  watchSessions(onChange: SessionListListener, options: WatchSessionsOptions = {}): () => void {
    return this.sessionList.attach(onChange, options);
  }

  private send<T extends ClientMessageType>(message: RequestOf<T>, onAnswer: ((answer: AnswerTo<T>) => void) | undefined): Promise<AnswerTo<T>> {
    if (this.state === 'closed') {
      return Promise.reject(new InterthoughtError('DISCONNECTED', 'The client is closed: call connect() first.'));
    }
    // Plain JavaScript callers are not held to the types: refuse what the server would refuse, without sending it.
    const accepts = ANSWER_TYPES[message.type] as readonly string[] | undefined;
    if (!accepts) return Promise.reject(new InterthoughtError('UNKNOWN_TYPE', `Unknown request type "${String(message.type)}".`));
    const id = `r${++this.nextRequestId}`;
    let frame: string;
    try {
      frame = JSON.stringify({ ...message, id });
    } catch (error) {
      return Promise.reject(new InterthoughtError('BAD_FRAME', `The request cannot be sent as JSON: ${error instanceof Error ? error.message : String(error)}`));
    }
    return new Promise<AnswerTo<T>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.fail(id, new InterthoughtError('TIMEOUT', `No answer to ${message.type} within ${this.requestTimeoutMs} ms.`, undefined, id));
      }, this.requestTimeoutMs);
      this.pending.add({
        id,
        frame,
        accepts,
        sent: false,
        timer,
        onAnswer: onAnswer as ((answer: ServerMessage) => void) | undefined,
        resolve: resolve as (answer: ServerMessage) => void,
        reject,
      });
      if (this.state === 'open') this.flush();
    });
  }

  /** Send every request that waited for the connection. */
  private flush(): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== SOCKET_OPEN) return;
    for (const request of this.pending.unsent()) {
      request.sent = true;
      socket.send(request.frame);
    }
  }

  private openSocket(): void {
    const Impl = this.WebSocketImpl;
    if (!Impl) {
      this.fail(new InterthoughtError('DISCONNECTED', 'No WebSocket implementation: pass the `WebSocket` option (e.g. from the `ws` package).'));
      return;
    }
    let socket: WebSocketLike;
    try {
      const token = typeof this.token === 'function' ? this.token() : this.token;
      this.refresher.opening(token);
      socket = new Impl(withToken(this.shownUrl, token));
    } catch (error) {
      this.fail(new InterthoughtError('DISCONNECTED', `Cannot open ${this.shownUrl}: ${error instanceof Error ? error.message : String(error)}`));
      return;
    }
    this.socket = socket;
    this.reconnectAt = undefined;
    // The server speaks first. An attempt without a hello in time (a hanging connect, a stuck or
    // foreign server) is dropped and retried like any other.
    this.helloTimer = setTimeout(() => {
      closeQuietly(socket, NO_HELLO_CLOSE_CODE, 'no hello');
      this.dropped(socket);
    }, this.requestTimeoutMs);
    socket.onmessage = (event: SocketMessageEvent) => {
      if (socket === this.socket) this.receive(event.data);
    };
    socket.onclose = (event: { code?: number }) => this.dropped(socket, event.code);
    socket.onerror = () => undefined; // a close event always follows
  }

  /** Give up: the URL or the runtime cannot work, so retrying would not help. */
  private fail(error: InterthoughtError): void {
    this.refresher.stop();
    this.sessionList.stop();
    this.setState('closed');
    this.pending.failAll(error);
    for (const waiter of this.openWaiters.splice(0)) waiter.reject(error);
  }

  private receive(data: unknown): void {
    const frame = readServerFrame(data);
    if (!frame) return;
    if (frame.type === 'hello') {
      if (!isCompatibleProtocol(frame.protocol)) return this.refuseServer(frame);
      this.opened(frame);
    }
    this.pending.settle(frame);
    this.feeds.handle(frame);
    this.sessionList.handle(frame);
    for (const listener of [...this.messageListeners]) {
      try {
        listener(frame);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  /** A server of another major version: retrying would meet it again, so the client stops. */
  private refuseServer(hello: Hello): void {
    const socket = this.socket;
    this.socket = undefined;
    clearTimeout(this.helloTimer);
    if (socket) closeQuietly(socket, PROTOCOL_MISMATCH_CLOSE_CODE, 'protocol mismatch');
    this.fail(
      new InterthoughtError(
        'PROTOCOL_MISMATCH',
        `${this.shownUrl} speaks ${JSON.stringify(hello.protocol)}; this client speaks ${PROTOCOL_VERSION}. Use a version of @interthought/protocol made for that server.`,
      ),
    );
  }

  private opened(hello: Hello): void {
    clearTimeout(this.helloTimer);
    this.hello = hello;
    this.attempt = 0;
    this.setState('open');
    this.refresher.opened(hello.capabilities.includes('auth-refresh'));
    this.feeds.resubscribeAll();
    this.sessionList.connected();
    this.flush();
    for (const waiter of this.openWaiters.splice(0)) waiter.resolve(hello);
  }

  private dropped(socket: WebSocketLike, code?: number): void {
    if (socket !== this.socket) return;
    this.socket = undefined;
    clearTimeout(this.helloTimer);
    this.pending.failSent(new InterthoughtError('DISCONNECTED', 'The connection dropped before the answer arrived.'));
    this.refresher.stop();
    if (this.state === 'closed') return;
    const final = finalClose(code, typeof this.token === 'function');
    if (final !== undefined) return this.fail(final);
    const delay = backoffDelay(this.attempt++, this.backoff);
    this.reconnectAt = Date.now() + delay;
    this.setState('reconnecting');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.openSocket();
    }, delay);
  }

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    for (const listener of [...this.stateListeners]) {
      try {
        listener(state);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  private clearTimers(): void {
    this.refresher.stop();
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.helloTimer);
    this.reconnectTimer = undefined;
    this.helloTimer = undefined;
  }
}

/** Close a socket we are done with; its late events must not reach the client (an `error` without a listener would throw in `ws`). */
function closeQuietly(socket: WebSocketLike, code: number, reason: string): void {
  socket.onmessage = null;
  socket.onclose = null;
  socket.onerror = () => undefined;
  try {
    socket.close(code, reason);
  } catch {
    // Already closing or closed: nothing left to do.
  }
}

/**
 * A close that retrying cannot undo (PROTOCOL.md §17): the share link the URL carries ended
 * (4403), or the token expired (4401) and the client has no token function that could give a newer
 * one. Undefined: reconnect as usual.
 */
function finalClose(code: number | undefined, refreshableToken: boolean): InterthoughtError | undefined {
  if (code === SHARE_ENDED_CLOSE.code) return new InterthoughtError('FORBIDDEN', 'The share link this client connected with was revoked or has expired.');
  if (code === TOKEN_EXPIRED_CLOSE.code && !refreshableToken) return new InterthoughtError('UNAUTHORIZED', 'The token expired: create the client again with a fresh token, or pass a token function.');
  return undefined;
}
