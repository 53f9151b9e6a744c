import { rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A unix-socket proxy in front of Redis that can lose a reply the way a network cut does: the
 * command reached Redis and ran, but its answer never comes back and the connection drops.
 */
export interface ReplyCuttingProxy {
  /** The socket to connect clients to. */
  readonly socket: string;
  /** The next reply from Redis is thrown away and that client's connection cut. */
  cutNextReply(): void;
  /** How many replies were cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

export async function startReplyCuttingProxy(upstream: string, socket: string): Promise<ReplyCuttingProxy> {
  let cutPending = false;
  let cuts = 0;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const redis = connect(upstream);
    open.add(client).add(redis);
    const closeBoth = () => {
      client.destroy();
      redis.destroy();
    };
    client.on('close', closeBoth).on('error', closeBoth);
    redis.on('close', closeBoth).on('error', closeBoth);
    client.on('data', (chunk) => redis.write(chunk));
    redis.on('data', (chunk) => {
      if (!cutPending) {
        client.write(chunk);
        return;
      }
      cutPending = false;
      cuts += 1;
      closeBoth();
    });
  });
  rmSync(socket, { force: true });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    socket,
    cutNextReply: () => (cutPending = true),
    get cuts() {
      return cuts;
    },
    close: async () => {
      for (const connection of open) connection.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
