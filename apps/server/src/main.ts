import type { AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config/index.js';
import type { EventStore } from './core/persistence/event-store.js';
import { SessionManager } from './core/session-manager.js';
import { signInSummary } from './auth/sign-in-summary.js';
import { stopServer } from './graceful-stop.js';
import { RedisUnreachableError } from './cluster/redis-connection.js';
import { isStoreRefusal, openNodeStore, storeLocation, storeRefusal } from './config/store-from-config.js';
import { TraceConfigError, startTracing, type Tracing } from './tracing/index.js';

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

/** Tracing as the OTEL_* variables ask (off when they name no exporter); a value it cannot use ends start-up like a configuration mistake. */
function startTraces(): Tracing {
  try {
    return startTracing(process.env);
  } catch (error) {
    if (!(error instanceof TraceConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

/** The configured SQLite or Postgres store; one it cannot use ends start-up with one clear paragraph and exit code 1. */
async function openStore(config: Config): Promise<EventStore> {
  try {
    const store = await openNodeStore(config);
    console.log(storeLocation(store));
    return store;
  } catch (error) {
    if (!isStoreRefusal(error)) throw error;
    console.error(storeRefusal(error));
    process.exit(1);
  }
}

/** The start-up line of a cluster node: where its sessions live, and what Redis carries. */
function clusterLine(cluster: NonNullable<Config['cluster']>, database: Config['database']): string {
  const redis = cluster.redisUrl.replace(/\/\/[^@/]*@/, '//***@');
  if (database === undefined) return `Cluster node ${cluster.nodeId}: sessions are shared through Redis at ${redis}`;
  const target = database.url.replace(/\/\/[^@/]*@/, '//***@');
  return `Cluster node ${cluster.nodeId}: sessions are stored in the Postgres database at ${target}; leases, fan-out and commands go through Redis at ${redis}`;
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

async function main(): Promise<void> {
  const config = readConfig();
  const tracing = startTraces();
  // In cluster mode the app's cluster node owns its log (Redis or Postgres); else the SQLite or Postgres store is ours,
  // not the app's: it closes after the app has stopped its sessions.
  const store = config.cluster === undefined ? await openStore(config) : undefined;
  if (config.cluster !== undefined) console.log(clusterLine(config.cluster, config.database));
  const app = await buildApp(config, store === undefined ? {} : { store }).catch((error: unknown) => {
    if (isStoreRefusal(error)) {
      console.error(storeRefusal(error));
      process.exit(1);
    }
    if (!(error instanceof RedisUnreachableError)) throw error;
    // An operator's mistake or an outage: one clear paragraph, not a stack trace.
    console.error(`${error.message}. Start Redis there (or fix INTERTHOUGHT_REDIS_URL), or unset INTERTHOUGHT_REDIS_URL to run one server on SQLite.`);
    process.exit(1);
  });
  if (app.sessions instanceof SessionManager && app.sessions.recoveredSessionIds.length > 0) {
    const count = app.sessions.recoveredSessionIds.length;
    console.log(`${count} session${count === 1 ? ' was' : 's were'} running when the server last stopped: marked interrupted (session.resume continues one).`);
  }
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    console.error(`Interthought could not listen on ${urlHost(config.host)}:${config.port}: ${error instanceof Error ? error.message : String(error)}`);
    await app.close();
    await store?.close();
    process.exit(1);
  }
  const { port } = app.server.address() as AddressInfo;
  console.log(`Interthought is running at http://${urlHost(config.host)}:${port}`);
  const signIn = signInSummary(config);
  if (signIn !== undefined) console.log(signIn);
  if (tracing.summary !== undefined) console.log(tracing.summary);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    // The sessions stop and write first, HTTP and WebSockets close, stragglers are cut; the store always closes.
    // Then the spans of the runs it ended are sent (tracing waits a few seconds at most).
    void stopServer(app, store, { onTimeout: () => console.error('Interthought did not stop in time; its store was closed, exiting.') }).then(async (code) => {
      await tracing.shutdown();
      process.exit(code);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

await main();
