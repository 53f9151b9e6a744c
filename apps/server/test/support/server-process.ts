import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal's name if it was killed). */
  exited: Promise<number | string>;
}

/**
 * The environment of a server process a test starts: nothing of the test runner's own, on
 * loopback, any free port, quiet logs and no web build (tests talk to the API), then `extra`.
 */
export function testServerEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    INTERTHOUGHT_WEB_DIR: '/nonexistent-interthought-build',
    ...extra,
  };
}

/**
 * Run `tsx src/main.ts` as a real process, the way `pnpm start` does. Sessions are kept in memory
 * unless `env` sets INTERTHOUGHT_DB, so parallel tests never share (or lock) the default file.
 */
export function spawnServer(env: Record<string, string>): ServerProcess {
  const child = spawn(TSX, ['src/main.ts'], {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', INTERTHOUGHT_DB: ':memory:', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watchServerProcess(child);
}

/** Keep what a spawned server prints and when it exits; `onExit` runs first (e.g. to forget the child). */
export function watchServerProcess(child: ChildProcess, onExit?: () => void): ServerProcess {
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      onExit?.();
      resolve(code ?? signal ?? -1);
    }),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Wait for the "Interthought is running at …" line and return its URL. */
export function runningUrl(server: ServerProcess, timeoutMs = 45_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = /Interthought is running at (http:\/\/\S+)/.exec(server.stdout());
      if (match?.[1]) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    const poll = setInterval(check, 20);
    const timer = setTimeout(() => {
      clearInterval(poll);
      reject(new Error(`The server did not start.\nstdout:\n${server.stdout()}\nstderr:\n${server.stderr()}`));
    }, timeoutMs);
    server.exited.then(() => {
      check();
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`The server exited before it was running.\nstdout:\n${server.stdout()}\nstderr:\n${server.stderr()}`));
    });
  });
}
