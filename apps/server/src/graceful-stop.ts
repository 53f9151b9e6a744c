import type { FastifyInstance } from 'fastify';
import type { EventStore } from './core/persistence/event-store.js';

/** How long clients get to finish HTTP requests before every connection left is cut. */
export const HTTP_GRACE_MS = 2_000;
/** How long a stop may take in all before the process exits anyway (after closing the store). */
export const STOP_TIMEOUT_MS = 10_000;

export interface StopOptions {
  httpGraceMs?: number;
  timeoutMs?: number;
  /** Told when the stop overran its time (the store was still closed). */
  onTimeout?: () => void;
}

/**
 * Stop the server so that what is pending is always written and the store always closed,
 * whatever clients hold open. The sessions stop first, on their own clock: their runs are
 * aborted and their events written while sockets are still open, so nothing a client holds (an
 * idle keep-alive connection, a socket that never answers the close handshake) can keep the
 * store from being flushed. Then HTTP and WebSockets close; connections still open after the
 * grace are cut. Resolves with the exit code: 0, or 1 when something failed or overran.
 */
export async function stopServer(app: FastifyInstance, store: EventStore | undefined, options: StopOptions = {}): Promise<number> {
  const httpGraceMs = options.httpGraceMs ?? HTTP_GRACE_MS;
  const timeoutMs = options.timeoutMs ?? STOP_TIMEOUT_MS;
  let code = 0;
  const sessionsStopped = app.sessions.shutdown().catch((error: unknown) => {
    app.log.error({ err: error }, 'stopping the sessions failed');
    code = 1;
  });
  const cut = setTimeout(() => app.server.closeAllConnections(), httpGraceMs);
  cut.unref();
  let overran: NodeJS.Timeout | undefined;
  const deadline = new Promise<'overran'>((resolve) => {
    overran = setTimeout(() => resolve('overran'), timeoutMs);
    overran.unref();
  });
  const closed = app.close().then(
    () => 'closed' as const,
    (error: unknown) => {
      app.log.error({ err: error }, 'closing the server failed');
      code = 1;
      return 'closed' as const;
    },
  );
  const outcome = await Promise.race([Promise.all([closed, sessionsStopped]).then(() => 'closed' as const), deadline]);
  clearTimeout(cut);
  clearTimeout(overran);
  if (outcome === 'overran') {
    options.onTimeout?.();
    code = 1;
  }
  try {
    await store?.close();
  } catch (error) {
    app.log.error({ err: error }, 'closing the store failed');
    code = 1;
  }
  return code;
}
