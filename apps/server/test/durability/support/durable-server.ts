import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testServerEnv, watchServerProcess, type ServerProcess } from '../../support/server-process.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const READY = /Interthought is running at (http:\/\/\S+)/;
// Generous: a loaded machine (CI, shared cores) can take tens of seconds to transpile and start the server.
const START_TIMEOUT_MS = 60_000;

/** A real server process: `node --import tsx apps/server/src/main.ts`, started from the repository root. */
export type ServerChild = ServerProcess;

export interface DurableServer extends ServerChild {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** e.g. ws://127.0.0.1:41234/ws */
  wsUrl: string;
  /** `kill -9`: the process dies at once, whatever it was writing or sending. */
  crash(): Promise<void>;
  /** SIGTERM: a graceful stop; resolves with the exit code. */
  stop(): Promise<number | string>;
}

const children = new Set<ChildProcess>();

/** Spawn the server without waiting for it (for start-ups that must fail). */
export function spawnServerProcess(env: Record<string, string>): ServerChild {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: REPO_ROOT,
    env: testServerEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  return watchServerProcess(child, () => children.delete(child));
}

/** Wait for the "Interthought is running at …" line. */
function runningUrl(server: ServerChild): Promise<string> {
  return new Promise((resolve, reject) => {
    const describe = () => `stdout:\n${server.stdout()}\nstderr:\n${server.stderr()}`;
    const timer = setTimeout(() => reject(new Error(`The server did not start.\n${describe()}`)), START_TIMEOUT_MS);
    const onData = () => {
      const match = READY.exec(server.stdout());
      if (!match?.[1]) return;
      clearTimeout(timer);
      server.child.stdout?.off('data', onData);
      resolve(match[1]);
    };
    server.child.stdout?.on('data', onData);
    onData();
    void server.exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`The server exited before it was running.\n${describe()}`));
    });
  });
}

/** Start the server and resolve once it listens. */
export async function startDurableServer(env: Record<string, string>): Promise<DurableServer> {
  const server = spawnServerProcess(env);
  const url = await runningUrl(server);
  return {
    ...server,
    url,
    wsUrl: `${url.replace('http://', 'ws://')}/ws`,
    async crash() {
      server.child.kill('SIGKILL');
      await server.exited;
    },
    async stop() {
      server.child.kill('SIGTERM');
      return server.exited;
    },
  };
}

/** Kill every server process a test left running (afterEach). */
export async function killServers(): Promise<void> {
  const running = [...children];
  for (const child of running) child.kill('SIGKILL');
  await Promise.all(running.map((child) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())))));
}

/** A folder for a test's database files. */
export interface TempFolder {
  path: string;
  file(name: string): string;
  cleanup(): void;
}

/** A fresh folder for database files, removed by `cleanup`. */
export function tempFolder(): TempFolder {
  const path = mkdtempSync(join(tmpdir(), 'interthought-durability-'));
  return { path, file: (name) => join(path, name), cleanup: () => rmSync(path, { recursive: true, force: true }) };
}
