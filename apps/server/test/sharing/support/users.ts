import type { ServerMessage, SessionInfo, SessionShared, ShareRole } from '@interthought/protocol';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Config, JwtConfig } from '../../../src/config/index.js';
import type { AppOverrides } from '../../../src/app.js';
import { TEST_JWT_SECRET, newSigningKey, signHs256, signWith, startJwksServer, type SigningKey, type TokenOptions } from '../../support/jwt.js';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';

/*
 * Users for the sharing tests (PROTOCOL.md §21): two people and an admin, the identity provider
 * that signs them in (an HS256 secret, or RS256 keys from a local JWKS endpoint that can rotate),
 * and the WebSocket and REST calls they make against a real server.
 */

export interface TestUser {
  sub: string;
  name: string;
  roles?: string[];
}

export const ADA: TestUser = { sub: 'u-ada', name: 'Ada Lovelace' };
export const BOB: TestUser = { sub: 'u-bob', name: 'Bob Kahn' };
export const ROOT: TestUser = { sub: 'u-root', name: 'Grace Root', roles: ['admin'] };

/** The claim that makes ROOT an admin. */
const ADMIN_CLAIM = { claim: 'roles', value: 'admin' };

/** A server with users and the identity provider that signs them in. */
export interface UserServer {
  server: RunningServer;
  /** A token for `user` from the identity provider, signed with its current key. */
  tokenFor(user: TestUser, options?: TokenOptions): Promise<string>;
  /** The provider rotates its keys: it publishes a new key and signs every later token with it. Undefined for a shared secret. */
  rotateKey: (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

export interface IdentitySetup {
  name: string;
  /** Whether its servers' `rotateKey` is defined (known before any server starts, to declare tests). */
  rotatesKeys: boolean;
  start(config?: Partial<Config>, overrides?: AppOverrides): Promise<UserServer>;
}

/** The user's claims as an identity provider issues them. */
function claimsOf(user: TestUser): Record<string, unknown> {
  return { sub: user.sub, name: user.name, ...(user.roles === undefined ? {} : { roles: user.roles }) };
}

export const HS256_SETUP: IdentitySetup = {
  name: 'HS256 shared secret',
  rotatesKeys: false,
  async start(config = {}, overrides = {}) {
    const jwt: JwtConfig = { secret: TEST_JWT_SECRET, jwksUrl: undefined, issuer: undefined, audience: undefined, adminClaim: ADMIN_CLAIM };
    const server = await startServer({ identity: { mode: 'jwt', jwt }, ...config }, overrides);
    return { server, tokenFor: (user, options) => signHs256(claimsOf(user), options), rotateKey: undefined, close: () => server.close() };
  },
};

export const JWKS_SETUP: IdentitySetup = {
  name: 'RS256 keys from a JWKS URL',
  rotatesKeys: true,
  async start(config = {}, overrides = {}) {
    let current: SigningKey = await newSigningKey('key-1');
    const published: SigningKey[] = [current];
    const jwks = await startJwksServer(published);
    // No cooldown: a token of a freshly rotated key makes the server refetch the set at once.
    const jwt: JwtConfig = { secret: undefined, jwksUrl: jwks.url, issuer: undefined, audience: undefined, adminClaim: ADMIN_CLAIM, jwksCooldownMs: 0 };
    const server = await startServer({ identity: { mode: 'jwt', jwt }, ...config }, overrides);
    return {
      server,
      tokenFor: (user, options) => signWith(current, claimsOf(user), options),
      async rotateKey() {
        current = await newSigningKey(`key-${published.length + 1}`);
        // As providers rotate: the new key is published beside the old one, which tokens still in use were signed with.
        published.push(current);
        jwks.publish([...published]);
      },
      async close() {
        await server.close();
        await jwks.close();
      },
    };
  },
};

/** Clients a test opens, closed after it. */
export class OpenClients {
  readonly #clients: TestClient[] = [];

  /** Connect to `url`, past the `hello`. */
  async connect(url: string, headers: Record<string, string> = {}): Promise<TestClient> {
    const client = await TestClient.connect(url, { headers });
    this.#clients.push(client);
    await client.waitForType('hello');
    return client;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.#clients.splice(0).map((client) => client.close()));
  }
}

/** Where a server listens: a `RunningServer` in this process, or a node process of a cluster. */
export interface Endpoint {
  /** e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  /** e.g. ws://127.0.0.1:41234/ws */
  wsUrl: string;
}

/** The `/ws` URL with these query parameters (`token`, `share`), each encoded. */
export function wsUrlWith(server: Endpoint, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  const search = params.toString();
  return search === '' ? server.wsUrl : `${server.wsUrl}?${search}`;
}

/** Send a request and wait for its direct answer. */
export async function ask(client: TestClient, frame: Record<string, unknown>): Promise<ServerMessage> {
  return client.answerTo(client.send(frame));
}

/** The answer must be an `error` frame with `code`; resolves with its message. */
export async function refusal(client: TestClient, frame: Record<string, unknown>, code: string): Promise<string> {
  const answer = await ask(client, frame);
  expect(answer, `${String(frame.type)} should be refused with ${code}`).toMatchObject({ type: 'error', code });
  return (answer as { message: string }).message;
}

export interface RestCall {
  method?: string;
  /** A sign-in token, sent as `Authorization: Bearer`. */
  bearer?: string;
  /** A share link's token, sent as `X-Interthought-Share`. */
  share?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RestAnswer {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the text when it is not JSON (empty for 204). */
  body: unknown;
  text: string;
}

export async function rest(server: Endpoint, path: string, call: RestCall = {}): Promise<RestAnswer> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.bearer !== undefined) headers.authorization = `Bearer ${call.bearer}`;
  if (call.share !== undefined) headers['x-interthought-share'] = call.share;
  let body: string | undefined;
  if (call.body !== undefined) {
    body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${server.baseUrl}${path}`, { method: call.method ?? 'GET', headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? '' : JSON.parse(text);
  } catch {
    // Not JSON (an export as Markdown or NDJSON): the text is the body.
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** The ids of `GET /api/sessions` (first 100) as the credentials see it. */
export async function listedIds(server: Endpoint, call: RestCall): Promise<string[]> {
  const answer = await rest(server, '/api/sessions?limit=100', call);
  expect(answer.status).toBe(200);
  return (answer.body as { sessions: SessionInfo[] }).sessions.map((info) => info.sessionId);
}

/** A session that ran to its answer. */
export async function finishedSession(client: TestClient, task = 'What is 17 * 23?'): Promise<string> {
  const sessionId = await client.createSession(task);
  await client.untilFinished(sessionId);
  return sessionId;
}

/** A session whose calculator call waits for approval (demo agent, `approve: 'all'`), and the waiting step. */
export async function waitingSession(client: TestClient, task = 'What is 15% of 240?'): Promise<{ sessionId: string; stepId: string }> {
  const sessionId = await client.createSession(task, { options: { approve: 'all' } });
  const requested = await client.waitForType('approval.requested', (frame) => frame.sessionId === sessionId);
  await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'waiting');
  return { sessionId, stepId: requested.stepId };
}

/** An id of the same shape as a real one that no session has. */
export function missingIdLike(sessionId: string): string {
  return `${sessionId.slice(0, -4)}zzzz`;
}

/** A refusal's message with the session id taken out, to compare refusals of two ids. */
export function withoutId(message: string, sessionId: string): string {
  return message.split(sessionId).join('<id>');
}

/** The owner makes a share link over the WebSocket: the `session.shared` answer. */
export async function shareLink(owner: TestClient, sessionId: string, role: ShareRole, expiresInSec?: number): Promise<SessionShared> {
  const answer = await ask(owner, { type: 'session.share', sessionId, role, ...(expiresInSec === undefined ? {} : { expiresInSec }) });
  expect(answer, 'session.share').toMatchObject({ type: 'session.shared', sessionId, role });
  return answer as SessionShared;
}

/**
 * One server of `setup` for every test of a suite, started before them and closed after, and the
 * clients each test opens, closed after it: read `env.users` inside tests (it is set once started).
 */
export function useUserServer(setup: IdentitySetup = HS256_SETUP): { readonly users: UserServer; readonly clients: OpenClients } {
  let users: UserServer | undefined;
  const clients = new OpenClients();
  beforeAll(async () => {
    users = await setup.start();
  });
  afterEach(() => clients.closeAll());
  afterAll(() => users?.close());
  return {
    get users(): UserServer {
      if (users === undefined) throw new Error('The user server did not start (see the beforeAll error).');
      return users;
    },
    clients,
  };
}
