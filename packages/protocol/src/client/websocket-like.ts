/**
 * The part of the WebSocket API the client uses. Both the browser's `WebSocket` and the `ws`
 * package's `WebSocket` fit it; the handlers take `never` so that either one's event types do.
 */
export interface WebSocketLike {
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onmessage: ((event: never) => void) | null;
  onclose: ((event: never) => void) | null;
  onerror: ((event: never) => void) | null;
}

/** A WebSocket constructor: `globalThis.WebSocket` in browsers (and Node 22+), `WebSocket` from `ws` in Node. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** The field of a message event the client reads. */
export interface SocketMessageEvent {
  data: unknown;
}

/** `WebSocket.OPEN`. */
export const SOCKET_OPEN = 1;

/** The WebSocket constructor of this runtime, if it has one. */
export function globalWebSocket(): WebSocketConstructor | undefined {
  return (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
}

/** The URL with `token` added as the `token` query parameter (works for relative URLs too). */
export function withToken(url: string, token: string | undefined): string {
  if (token === undefined) return url;
  const separator = url.includes('?') ? '&' : '?';
  return `${url}${separator}token=${encodeURIComponent(token)}`;
}
