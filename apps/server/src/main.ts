import type { AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';

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

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

async function main(): Promise<void> {
  const config = readConfig();
  const app = await buildApp(config);
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    console.error(`Interthought could not listen on ${urlHost(config.host)}:${config.port}: ${error instanceof Error ? error.message : String(error)}`);
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
    // close(): refuse new requests, close every WebSocket with 1001, stop the sessions, close the store.
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

await main();
