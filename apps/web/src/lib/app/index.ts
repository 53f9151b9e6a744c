// App-wide services, created once by the root layout and provided through context.
export { provideApp, useApp, type AppContext, type RailState } from './app-context.js';
export { createApp, startApp, socketUrl, type CreateAppOptions } from './create-app.js';
export { Announcer } from './announcer.svelte.js';
export { ConnectionStatus, type ConnectionDisplay } from './connection-status.svelte.js';
export { KeyboardHub, type ShortcutHandler } from './keyboard-hub.svelte.js';
export { OwnConnections } from './own-connections.js';
export { SocketLine, withShare, type ObservableSocket, type ObservableSocketConstructor, type SocketLineOptions } from './socket-line.js';
export { RailToggle } from './rail-state.svelte.js';
export { Toaster, type Toast } from './toaster.svelte.js';
export { describeError, errorCodeAndMessage, type ErrorText } from './error-text.js';
export { default as ErrorState } from './ErrorState.svelte';
export { default as LiveRegion } from './LiveRegion.svelte';
export { default as Toasts } from './Toasts.svelte';
export { tabTitle, type TabTitleInput } from './tab-title.js';
