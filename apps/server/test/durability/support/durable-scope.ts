import { afterEach, beforeEach } from 'vitest';
import { killServers, tempFolder, type TempFolder } from './durable-server.js';
import { RawClient } from './raw-client.js';

/**
 * The per-test scope of the server-process tests: a fresh temp folder before each test (handed to
 * `use`); after it, every client opened with the returned `connect` closed, every server process
 * killed and the folder removed.
 */
export function useDurableScope(use: (folder: TempFolder) => void): (wsUrl: string) => Promise<RawClient> {
  let folder: TempFolder | undefined;
  const clients: RawClient[] = [];
  beforeEach(() => {
    folder = tempFolder();
    use(folder);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await killServers();
    folder?.cleanup();
  });
  return async (wsUrl) => {
    const client = await RawClient.connect(wsUrl);
    clients.push(client);
    return client;
  };
}
