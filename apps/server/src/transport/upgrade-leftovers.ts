import { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

/**
 * Let go of what the HTTP upgrade leaves attached to a WebSocket for its whole life. Node keeps
 * the upgrade's `ServerResponse` on the TCP socket (`_httpMessage`), and through it the request,
 * its headers and Fastify's request, reply and logger; @fastify/websocket's 'error' listener holds
 * the request and reply too. An idle connection then costs ~2 KiB of heap the raw `ws` server
 * never pays. `onError` takes over from that listener (the same handling, without the request).
 */
export function releaseUpgradeLeftovers(socket: WebSocket, onError: (this: WebSocket, error: Error) => void): void {
  const tcp = (socket as unknown as { _socket?: Socket & { _httpMessage?: unknown } })._socket;
  const response = tcp?._httpMessage;
  if (tcp !== undefined && response instanceof ServerResponse) response.detachSocket(tcp);
  for (const listener of socket.listeners('error')) socket.off('error', listener as (error: Error) => void);
  socket.on('error', onError);
}
