import type { FastifyReply, FastifyRequest } from 'fastify';
import { WebSocket, type WebSocketServer } from 'ws';
import { briefError, type BriefWarnings } from './brief-warnings.js';

/** Close code and reason every client gets when the server stops. */
export const SHUTDOWN_CLOSE = { code: 1001, reason: 'server shutting down' } as const;

/** How long clients get to answer the close handshake before their sockets are cut. */
export const SHUTDOWN_GRACE_MS = 3_000;

/**
 * Close every open WebSocket with 1001. `ws` sends the close frame after the frames already
 * queued, so in-flight writes reach the client first; stragglers are terminated after the grace
 * period. A socket already closing has had its close frame queued before: it is cut at once.
 */
export async function closeAllSockets(server: WebSocketServer, graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
  const closing = [...server.clients].map(
    (socket) =>
      new Promise<void>((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        let cut: NodeJS.Timeout | undefined;
        socket.once('close', () => {
          clearTimeout(cut);
          resolve();
        });
        if (socket.readyState !== WebSocket.OPEN) {
          socket.terminate();
          return;
        }
        cut = setTimeout(() => socket.terminate(), graceMs);
        socket.close(SHUTDOWN_CLOSE.code, SHUTDOWN_CLOSE.reason);
      }),
  );
  await Promise.all(closing);
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * An error on an established socket. A protocol violation (e.g. a frame over maxPayload) has
 * already started the close with its code (1009), so it is only logged, briefly: a client can
 * cause these at will. The socket is closed with 1011 only if it is somehow still open.
 */
export function handleSocketError(warnings: BriefWarnings, socket: WebSocket, error: Error, remoteAddress?: string): void {
  warnings.warn('websocket-error', { error: briefError(error), ...(remoteAddress === undefined ? {} : { remoteAddress }) }, 'websocket error');
  if (socket.readyState === WebSocket.OPEN) socket.close(1011, 'internal error');
}

/** The same handling as @fastify/websocket's `errorHandler` (sockets whose upgrade listener is still attached). */
export function socketErrorHandler(warnings: BriefWarnings) {
  return function onSocketError(this: unknown, error: Error, socket: WebSocket, request: FastifyRequest, _reply: FastifyReply): void {
    handleSocketError(warnings, socket, error, request.ip);
  };
}
