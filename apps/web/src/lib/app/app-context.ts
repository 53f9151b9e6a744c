import type { InterthoughtClient } from '@interthought/protocol';
import { createContext } from 'svelte';
import type { AccessGate } from '$lib/access/access-gate.svelte.js';
import type { RestApi } from '$lib/api/rest-api.js';
import type { SessionDeletion } from '$lib/session-list/session-deletion.svelte.js';
import type { SessionList } from '$lib/session-list/session-list.svelte.js';
import type { ShareScope } from '$lib/sharing/share-scope.js';
import type { Announcer } from './announcer.svelte.js';
import type { ConnectionStatus } from './connection-status.svelte.js';
import type { KeyboardHub } from './keyboard-hub.svelte.js';
import type { OwnConnections } from './own-connections.js';
import type { Toaster } from './toaster.svelte.js';

/** The services every page shares, created once by the root layout. */
export interface AppContext {
  client: InterthoughtClient;
  /** Whether the server lets this tab in, and what to ask the user for when it does not. */
  access: AccessGate;
  /** The share link this tab presents on the page open now, if it was opened with one. */
  shares: ShareScope;
  connection: ConnectionStatus;
  api: RestApi;
  sessionList: SessionList;
  deletion: SessionDeletion;
  toaster: Toaster;
  announcer: Announcer;
  ownConnections: OwnConnections;
  keyboard: KeyboardHub;
  rail: RailState;
}

/** Whether the left rail is open; remembered across visits. */
export interface RailState {
  readonly open: boolean;
  toggle(): void;
}

/** `useApp()` reads the app services that the root layout gave every page with `provideApp()`. */
export const [useApp, provideApp] = createContext<AppContext>();
