import type { WebSocketConstructor, WebSocketLike } from '@interthought/protocol';
import type { ShareScope } from '$lib/sharing/share-scope.js';

/** What the line needs of the browser's WebSocket beyond what the client uses: the close event's code. */
export interface ObservableSocket extends WebSocketLike {
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
}

export type ObservableSocketConstructor = new (url: string) => ObservableSocket;

export interface SocketLineOptions {
  /**
   * The share link to present on the next socket (`?share=`), if any, and the page changes after
   * which it may be another: the line then `sync`s.
   */
  shares: Pick<ShareScope, 'token' | 'onChange'>;
  /** The WebSocket to build on (the browser's by default). */
  WebSocket?: ObservableSocketConstructor;
}

/** `url` with `?share=<token>` added (after the client's own `token`, if any). */
export function withShare(url: string, share: string | undefined): string {
  if (share === undefined) return url;
  return `${url}${url.includes('?') ? '&' : '?'}share=${encodeURIComponent(share)}`;
}

/**
 * The WebSocket the app's client opens, wrapped: each socket presents the share link the page
 * holds, and its close code is reported (the client treats every close as a drop to retry, but a
 * 4403 "share ended" must stop the page instead). `sync` drops the open socket when the page now
 * needs another link than the one it was opened with; the client then reconnects with the right one.
 */
export class SocketLine {
  /** Pass this as the client's `WebSocket` option. */
  readonly WebSocket: WebSocketConstructor;
  #current: { socket: ObservableSocket; share: string | undefined } | undefined;
  readonly #shares: SocketLineOptions['shares'];
  readonly #closeListeners = new Set<(code: number, reason: string) => void>();

  constructor(options: SocketLineOptions) {
    this.#shares = options.shares;
    options.shares.onChange(() => this.sync());
    const Base = options.WebSocket ?? (globalThis as unknown as { WebSocket: ObservableSocketConstructor }).WebSocket;
    const line = this;
    this.WebSocket = class {
      constructor(url: string) {
        return line.#open(Base, url);
      }
    } as unknown as WebSocketConstructor;
  }

  #open(Base: ObservableSocketConstructor, url: string): ObservableSocket {
    const share = this.#shares.token();
    const socket = new Base(withShare(url, share));
    this.#current = { socket, share };
    // Registered before the client sets `onclose`, so this listener hears a close first.
    socket.addEventListener('close', (event) => {
      if (this.#current?.socket === socket) this.#current = undefined;
      for (const listener of this.#closeListeners) listener(event.code, event.reason);
    });
    return socket;
  }

  /** Hear each socket's close, with the server's code and reason (4403: the share link ended). Returns the function that stops it. */
  onClose(listener: (code: number, reason: string) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /** The page now presents another share link (or none): drop the socket opened with the old one. */
  sync(): void {
    const current = this.#current;
    if (!current || current.share === this.#shares.token()) return;
    this.#current = undefined;
    try {
      current.socket.close(1000, 'share link changed');
    } catch {
      // Already closing: the client reconnects either way.
    }
  }
}
