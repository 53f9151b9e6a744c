import { expect } from 'vitest';
import type { ClientRequest, Hello, InterthoughtClient } from '@interthought/protocol';
import { flushSync, type Component } from 'svelte';
import { AccessGate } from '$lib/access/access-gate.svelte.js';
import { TokenStore } from '$lib/access/token-store.js';
import { provideApp, type AppContext } from '$lib/app/app-context.js';
import { Announcer } from '$lib/app/announcer.svelte.js';
import { ConnectionStatus } from '$lib/app/connection-status.svelte.js';
import { KeyboardHub } from '$lib/app/keyboard-hub.svelte.js';
import { OwnConnections } from '$lib/app/own-connections.js';
import { RailToggle } from '$lib/app/rail-state.svelte.js';
import { Toaster } from '$lib/app/toaster.svelte.js';
import { RestApi } from '$lib/api/rest-api.js';
import { provideChainNavigation } from '$lib/chain/chain-navigation.js';
import { I18n, provideI18n } from '$lib/i18n/index.js';
import { SessionDeletion } from '$lib/session-list/session-deletion.svelte.js';
import { SessionList } from '$lib/session-list/session-list.svelte.js';
import { ShareScope } from '$lib/sharing/share-scope.js';
import { ShareTokenStore } from '$lib/sharing/share-token-store.js';
import { Clock, provideClock } from '$lib/time/clock.svelte.js';
import { mountProvided, type Mounted } from './mount-provided.js';

type Request = Omit<ClientRequest, 'id'>;

/**
 * The app services around a client that never touches the network: every request is recorded
 * and answered by `answer` (resolve for the server's answer, reject for its error frame).
 */
export interface TestApp {
  app: AppContext;
  i18n: I18n;
  requests: Request[];
  answer: (request: Request) => Promise<unknown>;
  /** Session ids passed to `onDeleted` (the layout would navigate home for the open one). */
  left: string[];
  /** The tab's access token as the access gate keeps it. */
  tokens: TokenStore;
}

/** A hello as a server with users and sharing sends it; `extra` adds `user`, `share` or other capabilities. */
export function testHello(extra: Partial<Hello> = {}): Hello {
  return {
    type: 'hello',
    protocol: 'interthought/1',
    serverVersion: 'test',
    connectionId: 'c-1',
    capabilities: ['users', 'sharing'],
    limits: { maxFrameBytes: 65536, maxTaskChars: 20000, maxCorrectionChars: 20000, maxSessionsPerConnection: 20, maxSubscriptionsPerConnection: 50, requestsPerSecond: 20, requestBurst: 40 },
    ...extra,
  };
}

export interface TestAppOptions {
  /** The hello the connection is open with (who the page is: `user`, `share`); none by default, as before users. */
  hello?: Hello;
}

export function createTestApp(locale: 'en' | 'zh' = 'en', options: TestAppOptions = {}): TestApp {
  const i18n = new I18n({ languages: [locale] });
  const requests: Request[] = [];
  const left: string[] = [];
  const test: TestApp = { app: undefined as unknown as AppContext, i18n, requests, answer: async () => undefined, left, tokens: new TokenStore(null) };
  const client = {
    state: 'open',
    hello: options.hello,
    reconnectAt: undefined,
    onStateChange: () => () => undefined,
    reconnectNow: () => undefined,
    connect: async () => undefined,
    close: () => {
      (client as { state: string }).state = 'closed';
    },
    request: (request: Request) => {
      requests.push(request);
      return test.answer(request);
    },
    // Recorded as the frames they send, like `request`.
    shareSession: (sessionId: string, role: string, expiresInSec?: number) => {
      const request = { type: 'session.share', sessionId, role, ...(expiresInSec === undefined ? {} : { expiresInSec }) } as Request;
      requests.push(request);
      return test.answer(request);
    },
    unshareSession: (sessionId: string, shareId: string) => {
      const request = { type: 'session.unshare', sessionId, shareId } as Request;
      requests.push(request);
      return test.answer(request);
    },
    // Recorded as the frame it sends: `session.create` with the agent and options given.
    createSession: (task: string, options: { agent?: string; options?: object } = {}) => {
      const request = { type: 'session.create', task, ...options } as Request;
      requests.push(request);
      return test.answer(request);
    },
  } as unknown as InterthoughtClient;
  // No fetch at all: a test that reaches the REST API by accident fails loudly.
  const api = new RestApi({ fetch: () => Promise.reject(new TypeError('no network in component tests')) });
  const sessionList = new SessionList(client, api);
  const toaster = new Toaster();
  test.app = {
    client,
    access: new AccessGate({ tokens: test.tokens, client, check: async () => ({ access: 'granted' }) }),
    shares: new ShareScope(new ShareTokenStore(null), () => '/'),
    connection: new ConnectionStatus(client),
    api,
    sessionList,
    deletion: new SessionDeletion({ client, sessionList, toaster, i18n, onDeleted: (sessionId) => left.push(sessionId) }),
    toaster,
    announcer: new Announcer(),
    ownConnections: new OwnConnections(null),
    keyboard: new KeyboardHub(),
    rail: new RailToggle(null, false),
  };
  return test;
}

/** Mount a component with the app, i18n and clock contexts; returns its container and a cleanup. */
export function mountWithApp<Props extends Record<string, unknown>>(component: Component<Props>, props: Props, test: TestApp): Mounted {
  return mountProvided(component, props, () => {
    provideApp(test.app);
    provideI18n(test.i18n);
    provideClock(new Clock());
    // What the session page gives its header and chain; a component tested alone has no chain drawn to reveal in.
    provideChainNavigation({ reveal: async () => null });
  });
}

/** The button whose accessible name (aria-label, else text) matches. */
export function buttonNamed(root: ParentNode, name: RegExp): HTMLButtonElement | undefined {
  return Array.from(root.querySelectorAll('button')).find((button) => name.test(button.getAttribute('aria-label') ?? button.textContent?.trim() ?? ''));
}

/** Poll `condition` every 10 ms until it holds (at most `tries` times), then assert it. */
export async function until(condition: () => boolean, tries = 300): Promise<void> {
  for (let i = 0; i < tries && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

/** Let pending promise callbacks run, then flush Svelte's updates. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await Promise.resolve();
  await new Promise((resolve) => setTimeout(resolve, 0));
  flushSync();
}
