// The typed WebSocket client, one file per concern under ./client/.
export * from './client/interthought-client.js';
export * from './client/interthought-error.js';
export * from './client/session-mirror.js';
export * from './client/answers.js';
export * from './client/backoff.js';
export { CREATED_BACKLOG_LIMIT, type SessionUpdate, type SessionUpdateListener, type SubscribeOptions } from './client/session-feeds.js';
export type { WebSocketConstructor, WebSocketLike } from './client/websocket-like.js';
export { readServerFrame } from './client/server-frame.js';
export { newestFirst, type SessionListListener, type WatchSessionsOptions } from './client/session-list-feed.js';
