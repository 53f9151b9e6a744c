import { InterthoughtClient } from '@interthought/protocol';
import { AccessGate } from '$lib/access/access-gate.svelte.js';
import { TokenStore, tabStorage } from '$lib/access/token-store.js';
import { RestApi } from '$lib/api/rest-api.js';
import type { I18n } from '$lib/i18n/index.js';
import { SessionDeletion } from '$lib/session-list/session-deletion.svelte.js';
import { SessionList } from '$lib/session-list/session-list.svelte.js';
import { ShareScope } from '$lib/sharing/share-scope.js';
import { ShareTokenStore } from '$lib/sharing/share-token-store.js';
import { Announcer } from './announcer.svelte.js';
import type { AppContext } from './app-context.js';
import { ConnectionStatus } from './connection-status.svelte.js';
import { KeyboardHub } from './keyboard-hub.svelte.js';
import { OwnConnections } from './own-connections.js';
import { SocketLine } from './socket-line.js';
import { RailToggle } from './rail-state.svelte.js';
import { Toaster } from './toaster.svelte.js';

/** The WebSocket URL of the server that served this page (same host, `/ws`). */
export function socketUrl(location: Pick<Location, 'protocol' | 'host'>): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
}

function browserStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export interface CreateAppOptions {
  /** A session was deleted from this tab (the layout leaves its page if it is open). */
  onSessionDeleted?: (sessionId: string) => void;
}

/** Build the app's services for this browser tab. Nothing connects until `startApp`. */
export function createApp(i18n: I18n, options: CreateAppOptions = {}): AppContext {
  const storage = browserStorage();
  // Built in the order they depend on each other. What flows back (a page change to the socket, a
  // close code or a 401 to the access gate) the later object hears by subscribing to the earlier one.
  // The token hooks.client took from the address (or a reload kept); the socket and REST read it at each use.
  const tokens = new TokenStore(tabStorage());
  // The share link hooks.client took from a session's address: presented while that session's page is open.
  const shares = new ShareScope(new ShareTokenStore(tabStorage()), () => window.location.pathname);
  const line = new SocketLine({ shares });
  const client = new InterthoughtClient({ url: socketUrl(window.location), token: () => tokens.token, WebSocket: line.WebSocket });
  const api = new RestApi({ token: () => tokens.token, share: () => shares.token() });
  const access = new AccessGate({
    tokens,
    client,
    check: () => api.checkAccess(),
    presentedShare: () => shares.token(),
    forgetShare: () => shares.forgetPresented(),
    socketCloses: line,
    refusals: api,
  });
  const sessionList = new SessionList(client, api);
  const toaster = new Toaster();
  return {
    client,
    access,
    shares,
    connection: new ConnectionStatus(client),
    api,
    sessionList,
    deletion: new SessionDeletion({ client, sessionList, toaster, i18n, onDeleted: options.onSessionDeleted }),
    toaster,
    announcer: new Announcer(),
    ownConnections: new OwnConnections(storage),
    keyboard: new KeyboardHub(),
    rail: new RailToggle(storage, window.matchMedia('(max-width: 860px)').matches),
  };
}

/**
 * Connect, follow the session list, remember our connection ids, and announce a lost or regained connection
 * (not the first connect: that is no news). Returns the function that stops it all.
 */
export function startApp(app: AppContext, i18n: I18n): () => void {
  let lost = false;
  const stopListening = app.client.onStateChange((state) => {
    if (state === 'open' && app.client.hello) app.ownConnections.remember(app.client.hello.connectionId);
    if (state === 'reconnecting' && !lost) {
      lost = true;
      app.announcer.announce(i18n.t('announce.connection', { state: i18n.t('conn.reconnecting') }));
    } else if (state === 'open' && lost) {
      lost = false;
      app.announcer.announce(i18n.t('announce.connection', { state: i18n.t('conn.connected') }));
    }
  });
  // The client retries by itself until the server answers; the indicator shows how it goes,
  // and the access gate stops it when the reason is a missing or refused token.
  app.access.start();
  app.client.connect().catch(() => undefined);
  app.sessionList.start();
  return () => {
    stopListening();
    app.access.stop();
    app.sessionList.stop();
    app.connection.dispose();
    app.client.close();
  };
}
