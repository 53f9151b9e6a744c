import type { AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { EventStore } from './core/event-store.js';
import { SessionManager } from './core/session-manager.js';
import { StoreOpenError, openConfiguredStore, storeLocation, storeRefusal } from './store-from-config.js';

/** How long a graceful stop may take before the process gives up and exits 1. */
const STOP_TIMEOUT_MS = 10_000;

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // A configuration mistake is the operator's to fix: the message names it, a stack trace would bury it.
    console.error(error.message);
    process.exit(1);
  }
}

/** The configured SQLite store; a file it cannot use ends start-up with one clear paragraph and exit code 1. */
function openStore(config: Config): EventStore {
  try {
    const store = openConfiguredStore(config);
    console.log(storeLocation(store));
    return store;
  } catch (error) {
    if (!(error instanceof StoreOpenError)) throw error;
    console.error(storeRefusal(error));
    process.exit(1);
  }
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

async function main(): Promise<void> {
  const config = readConfig();
  const store = openStore(config);
  // The store is ours, not the app's: it closes after the app has stopped its sessions.
  const app = await buildApp(config, { store });
  if (app.sessions instanceof SessionManager && app.sessions.recoveredSessionIds.length > 0) {
    const count = app.sessions.recoveredSessionIds.length;
    console.log(`${count} session${count === 1 ? ' was' : 's were'} running when the server last stopped: marked interrupted (session.resume continues one).`);
  }
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    console.error(`Interthought could not listen on ${urlHost(config.host)}:${config.port}: ${error instanceof Error ? error.message : String(error)}`);
    await app.close();
    store.close();
    process.exit(1);
  }
  const { port } = app.server.address() as AddressInfo;
  console.log(`Interthought is running at http://${urlHost(config.host)}:${port}`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    setTimeout(() => {
      console.error('Interthought did not stop in time; exiting.');
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
    // close(): refuse new requests, close every WebSocket with 1001, stop the sessions; then the store closes.
    app.close().then(
      () => {
        store.close();
        process.exit(0);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        store.close();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

await main();
